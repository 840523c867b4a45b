//! Java files whose shape says a generator wrote them ([`crate::genshape`]): MyBatis Generator's
//! example classes and mapper interfaces, and data classes (fields and accessors only) that such a
//! generated family may name as its model. Read from the extracted symbols alone.

use crate::genshape::Shape;
use crate::model::{Symbol, SymbolKind};

/// Shown as the generator in shape reasons.
pub(crate) const MBG: &str = "MyBatis Generator";

/// The methods MyBatis Generator writes into a mapper (MyBatis3 and MyBatis3Simple runtimes,
/// with the BLOB and row-bounds variants).
pub(crate) const MBG_METHODS: &[&str] = &[
    "countByExample",
    "deleteByExample",
    "deleteByPrimaryKey",
    "insert",
    "insertSelective",
    "selectByExample",
    "selectByExampleWithBLOBs",
    "selectByExampleWithRowbounds",
    "selectByExampleWithBLOBsWithRowbounds",
    "selectByPrimaryKey",
    "selectAll",
    "updateByExampleSelective",
    "updateByExample",
    "updateByExampleWithBLOBs",
    "updateByPrimaryKeySelective",
    "updateByPrimaryKey",
    "updateByPrimaryKeyWithBLOBs",
];

/// A mapper counts as generated with at least this many distinct generator method names…
const MIN_MBG_METHODS: usize = 4;
/// …making up at least this share of its methods (a generated mapper that grew a few
/// hand-written queries still counts; a DAO that has an `insert` among its own does not).
const MIN_MBG_SHARE: f32 = 0.75;
/// An accessor spans at most this many lines (declaration to closing brace, annotations in).
const MAX_ACCESSOR_LINES: u32 = 5;

/// The shape of one Java file, if it has one.
pub(crate) fn shape(
    package: Option<&str>,
    imports: &[String],
    symbols: &[Symbol],
) -> Option<Shape> {
    let top: Vec<&Symbol> = symbols
        .iter()
        .filter(|s| s.kind.is_type() && is_top_level(s, symbols))
        .collect();
    let [t] = top.as_slice() else {
        return None;
    };
    let members: Vec<&Symbol> = symbols
        .iter()
        .filter(|s| s.parent.as_ref() == Some(&t.id))
        .collect();
    let qualify = |name: &str| qualify(name, package, imports);
    match t.kind {
        SymbolKind::Class => {
            example_class(t, &members, &qualify).or_else(|| data_class(t, &members, symbols))
        }
        SymbolKind::Interface => mapper_interface(&members, &qualify),
        _ => None,
    }
}

/// `XxxExample` with an inner `GeneratedCriteria` and `createCriteria()`: names model `Xxx`.
fn example_class(
    t: &Symbol,
    members: &[&Symbol],
    qualify: &dyn Fn(&str) -> String,
) -> Option<Shape> {
    let has =
        |kind: SymbolKind, name: &str| members.iter().any(|m| m.kind == kind && m.name == name);
    if !(has(SymbolKind::Class, "GeneratedCriteria") && has(SymbolKind::Method, "createCriteria")) {
        return None;
    }
    let models = t
        .name
        .strip_suffix("Example")
        .filter(|m| !m.is_empty())
        .map(|m| vec![qualify(m)])
        .unwrap_or_default();
    Some(Shape::Generated {
        generator: MBG.into(),
        what: "example class".into(),
        models,
    })
}

/// An interface made (mostly) of the generator's mapper methods. Its models are the record types
/// its insert and update methods take, and the `Xxx` of any `XxxExample` parameter.
fn mapper_interface(members: &[&Symbol], qualify: &dyn Fn(&str) -> String) -> Option<Shape> {
    let methods: Vec<&Symbol> = members
        .iter()
        .copied()
        .filter(|m| m.kind == SymbolKind::Method)
        .collect();
    let generated: Vec<&Symbol> = methods
        .iter()
        .copied()
        .filter(|m| MBG_METHODS.contains(&m.name.as_str()))
        .collect();
    let mut distinct: Vec<&str> = generated.iter().map(|m| m.name.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() < MIN_MBG_METHODS
        || (generated.len() as f32) < MIN_MBG_SHARE * methods.len() as f32
    {
        return None;
    }
    let mut models = Vec::new();
    for m in &generated {
        let params = param_types(m);
        let record = m.name.starts_with("insert") || m.name.starts_with("update");
        for (i, p) in params.iter().enumerate() {
            let model = match p.strip_suffix("Example") {
                Some(stem) if !stem.is_empty() => Some(stem),
                // The record: the only parameter, or the first one before the example.
                _ if record && i == 0 => Some(*p),
                _ => None,
            };
            if let Some(model) = model.filter(|m| m.starts_with(|c: char| c.is_ascii_uppercase())) {
                models.push(qualify(model));
            }
        }
    }
    models.sort();
    models.dedup();
    Some(Shape::Generated {
        generator: MBG.into(),
        what: "mapper interface".into(),
        models,
    })
}

/// A class with fields and nothing but accessors of them (plus `toString`, `equals`, `hashCode`
/// and constructors), no nested types.
fn data_class(t: &Symbol, members: &[&Symbol], all: &[Symbol]) -> Option<Shape> {
    if all.iter().any(|s| s.kind.is_type() && s.id != t.id) {
        return None;
    }
    let fields: Vec<&str> = members
        .iter()
        .filter(|m| m.kind == SymbolKind::Field && !m.is_static)
        .map(|m| m.name.as_str())
        .collect();
    if fields.is_empty() {
        return None;
    }
    let ok = members.iter().all(|m| match m.kind {
        SymbolKind::Field | SymbolKind::Constructor => true,
        SymbolKind::Method => {
            matches!(m.name.as_str(), "toString" | "equals" | "hashCode")
                || (m.end_line.saturating_sub(m.start_line) < MAX_ACCESSOR_LINES
                    && accessed_field(&m.name).is_some_and(|f| fields.contains(&f.as_str())))
        }
        _ => false,
    });
    ok.then(|| Shape::DataClass {
        qname: t.qualified_name.clone(),
    })
}

/// The field a `getX`/`isX`/`setX` name stands for (`x`).
fn accessed_field(name: &str) -> Option<String> {
    let rest = ["get", "set", "is"]
        .iter()
        .find_map(|p| name.strip_prefix(p))?;
    let mut chars = rest.chars();
    let first = chars.next().filter(char::is_ascii_uppercase)?;
    Some(first.to_ascii_lowercase().to_string() + chars.as_str())
}

fn is_top_level(s: &Symbol, symbols: &[Symbol]) -> bool {
    match &s.parent {
        None => true,
        Some(p) => symbols
            .iter()
            .find(|o| &o.id == p)
            .is_none_or(|o| o.kind == SymbolKind::Package),
    }
}

/// Parameter types as the symbol id writes them (`#insert(OrderInfo)`), generics dropped.
fn param_types(m: &Symbol) -> Vec<&str> {
    let id = m.id.0.as_str();
    let Some(open) = id.rfind('(') else {
        return Vec::new();
    };
    id[open + 1..]
        .trim_end_matches(')')
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// A type name as the file's imports and package resolve it.
fn qualify(name: &str, package: Option<&str>, imports: &[String]) -> String {
    if name.contains('.') {
        return name.to_string();
    }
    if let Some(i) = imports
        .iter()
        .find(|i| i.rsplit('.').next() == Some(name) && !i.ends_with(".*"))
    {
        return i.trim_start_matches("static ").to_string();
    }
    match package {
        Some(p) if !p.is_empty() => format!("{p}.{name}"),
        _ => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{ParseLimits, analyze};
    use crate::model::RepoPath;

    fn shape_of(path: &str, src: &str) -> Option<Shape> {
        let path = RepoPath::new(path).unwrap();
        let a = analyze(
            crate::lang::java::LANGUAGE,
            &path,
            "m",
            src.as_bytes(),
            &ParseLimits::default(),
        );
        assert_eq!(a.degraded, None);
        a.shape
    }

    fn fixture(rel: &str) -> String {
        let root = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/shop/shop-mall/src/main/java/com/shop/mall/"
        );
        std::fs::read_to_string(format!("{root}{rel}")).unwrap()
    }

    #[test]
    fn a_generated_example_class_names_its_model() {
        let src = fixture("mbg/model/OrderInfoExample.java");
        assert_eq!(
            shape_of("x/OrderInfoExample.java", &src),
            Some(Shape::Generated {
                generator: MBG.into(),
                what: "example class".into(),
                models: vec!["com.shop.mall.mbg.model.OrderInfo".into()],
            })
        );
    }

    #[test]
    fn a_generated_mapper_names_its_model_through_imports() {
        let src = fixture("mbg/mapper/OrderInfoMapper.java");
        assert_eq!(
            shape_of("x/OrderInfoMapper.java", &src),
            Some(Shape::Generated {
                generator: MBG.into(),
                what: "mapper interface".into(),
                models: vec!["com.shop.mall.mbg.model.OrderInfo".into()],
            })
        );
    }

    #[test]
    fn generated_models_and_hand_written_pojos_are_both_data_classes() {
        // Only the family tells them apart (genshape::family).
        let model = fixture("mbg/model/OrderInfo.java");
        assert_eq!(
            shape_of("x/OrderInfo.java", &model),
            Some(Shape::DataClass {
                qname: "com.shop.mall.mbg.model.OrderInfo".into()
            })
        );
        let dto = fixture("dto/PayNotifyParam.java");
        assert_eq!(
            shape_of("x/PayNotifyParam.java", &dto),
            Some(Shape::DataClass {
                qname: "com.shop.mall.dto.PayNotifyParam".into()
            })
        );
    }

    #[test]
    fn a_hand_written_class_named_example_is_no_generator_output() {
        let src = "package a;\n\n/** Shows how to place an order. */\npublic class OrderExample {\n    private final OrderService orders;\n\n    public OrderExample(OrderService orders) {\n        this.orders = orders;\n    }\n\n    public Criteria createCriteria() {\n        return new Criteria();\n    }\n\n    public void run() {\n        orders.place(1L);\n        orders.pay(1L);\n    }\n\n    public static class Criteria {\n    }\n}\n";
        assert_eq!(shape_of("a/OrderExample.java", src), None);
    }

    #[test]
    fn a_hand_written_dao_with_a_few_generator_names_is_no_generator_output() {
        let src = "package a;\n\npublic interface OrderDao {\n    int insert(Order o);\n\n    Order selectByPrimaryKey(Long id);\n\n    int updateByPrimaryKey(Order o);\n\n    int deleteByPrimaryKey(Long id);\n\n    List<Order> findUnpaid(int minutes);\n\n    int markPaid(Long id);\n\n    int cancel(Long id);\n}\n";
        assert_eq!(shape_of("a/OrderDao.java", src), None);
    }

    #[test]
    fn a_class_with_behaviour_is_no_data_class() {
        // A setter that does more than store (longer than an accessor), and a method of its own.
        let src = "package a;\n\npublic class Account {\n    private long balance;\n\n    public long getBalance() {\n        return balance;\n    }\n\n    public void withdraw(long amount) {\n        balance -= amount;\n    }\n}\n";
        assert_eq!(shape_of("a/Account.java", src), None);
        let nested = "package a;\n\npublic class Holder {\n    private int x;\n\n    public int getX() {\n        return x;\n    }\n\n    static class Inner {\n    }\n}\n";
        assert_eq!(shape_of("a/Holder.java", nested), None);
    }

    #[test]
    fn accessor_names_map_to_fields() {
        assert_eq!(accessed_field("getOrderSn").as_deref(), Some("orderSn"));
        assert_eq!(accessed_field("isValid").as_deref(), Some("valid"));
        assert_eq!(accessed_field("settle"), None);
        assert_eq!(accessed_field("get"), None);
    }
}
