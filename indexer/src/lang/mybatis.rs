//! MyBatis mapper XML: the namespace, each statement (`<select|insert|update|delete id=..>`) with
//! its line, and the tables its SQL names ([`tables`], also used for annotation SQL). A tolerant
//! scanner, not an XML parser: comments are skipped, CDATA kept, dynamic tags (`<if>`,
//! `<foreach>`, `<include>`) dropped while their text stays.

use crate::genshape::Shape;
use crate::graph::facts::{MapperFacts, SqlStatement};
use crate::lang::java::generated::{MBG, MBG_METHODS};

/// The mapper facts of an XML file, `None` when it is not a MyBatis mapper.
pub fn mapper(src: &[u8]) -> Option<MapperFacts> {
    let text = String::from_utf8_lossy(src);
    let start = text.find("<mapper")?;
    let head_end = text[start..].find('>')? + start;
    let namespace = attr(&text[start..head_end], "namespace")?;
    let mut out = MapperFacts {
        namespace,
        statements: Vec::new(),
    };
    let mut at = head_end;
    while let Some(rel) = next_statement(&text[at..]) {
        let (op_start, op) = rel;
        let open = at + op_start;
        let Some(open_end) = text[open..].find('>').map(|i| open + i) else {
            break;
        };
        let tag = &text[open..open_end];
        let close_tag = format!("</{op}>");
        let body_end = text[open_end..]
            .find(&close_tag)
            .map(|i| open_end + i)
            .unwrap_or(text.len());
        if let Some(id) = attr(tag, "id") {
            let line = line_of(&text, open);
            let body = &text[open_end + 1..body_end.max(open_end + 1)];
            let body_line = line_of(&text, open_end + 1);
            out.statements.push(SqlStatement {
                id,
                op: op.to_string(),
                line,
                tables: tables_with_lines(&sql_text(body), body_line),
            });
        }
        at = body_end.max(open_end);
    }
    Some(out)
}

/// The shape of a mapper XML that MyBatis Generator wrote: its `Example_Where_Clause` or
/// `Update_By_Example_Where_Clause` fragment, or else `BaseResultMap` and `Base_Column_List` with
/// statements that are (mostly) the generator's set — hand-written mappers often copy the
/// `BaseResultMap`/`Base_Column_List` convention, never the example clauses. Its models are the
/// `type` of its generated result maps and the `parameterType` of its inserts and updates.
pub fn generator_shape(src: &[u8]) -> Option<Shape> {
    let text = String::from_utf8_lossy(src);
    let facts = mapper(src)?;
    let ids = |tag: &str| {
        tags(&text, tag)
            .filter_map(|t| attr(t, "id"))
            .collect::<Vec<_>>()
    };
    let fragments = ids("sql");
    let result_maps = ids("resultMap");
    let example_clause = fragments
        .iter()
        .any(|f| f == "Example_Where_Clause" || f == "Update_By_Example_Where_Clause");
    let generated_statements = facts
        .statements
        .iter()
        .filter(|s| MBG_METHODS.contains(&s.id.as_str()))
        .count();
    let conventional = result_maps.iter().any(|r| r == "BaseResultMap")
        && fragments.iter().any(|f| f == "Base_Column_List")
        && generated_statements >= 4
        && generated_statements * 4 >= facts.statements.len() * 3;
    if !(example_clause || conventional) {
        return None;
    }
    let mut models: Vec<String> = tags(&text, "resultMap")
        .filter(|t| {
            attr(t, "id").is_some_and(|id| id == "BaseResultMap" || id == "ResultMapWithBLOBs")
        })
        .filter_map(|t| attr(t, "type"))
        .chain(
            ["insert", "update"]
                .iter()
                .flat_map(|op| tags(&text, op))
                .filter_map(|t| attr(t, "parameterType"))
                .filter(|p| p.contains('.') && !p.starts_with("java.") && !p.ends_with("Example")),
        )
        .collect();
    models.sort();
    models.dedup();
    Some(Shape::Generated {
        generator: MBG.into(),
        what: "mapper XML".into(),
        models,
    })
}

/// The opening tags `<name …>` in `text` (attributes included, `>` excluded).
fn tags<'t>(text: &'t str, name: &str) -> impl Iterator<Item = &'t str> {
    let open = format!("<{name}");
    let mut at = 0;
    std::iter::from_fn(move || {
        loop {
            let p = at + text.get(at..)?.find(&open)?;
            let after = p + open.len();
            at = after;
            if text[after..].starts_with(|c: char| c.is_whitespace() || c == '>') {
                let end = text[after..].find('>').map_or(text.len(), |e| after + e);
                at = end;
                return Some(&text[p..end]);
            }
        }
    })
}

/// The next `<select|insert|update|delete` outside comments: (offset, op).
fn next_statement(s: &str) -> Option<(usize, &'static str)> {
    let mut i = 0;
    while let Some(rel) = s[i..].find('<') {
        let p = i + rel;
        let rest = &s[p..];
        if rest.starts_with("<!--") {
            i = p + rest.find("-->").map_or(rest.len(), |e| e + 3);
            continue;
        }
        for op in ["select", "insert", "update", "delete"] {
            if rest[1..].starts_with(op)
                && rest[1 + op.len()..].starts_with(|c: char| c.is_whitespace() || c == '>')
            {
                return Some((p, op));
            }
        }
        i = p + 1;
    }
    None
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let mut i = 0;
    while let Some(rel) = tag[i..].find(name) {
        let p = i + rel;
        let before_ok = p == 0 || tag[..p].ends_with(char::is_whitespace);
        let rest = tag[p + name.len()..].trim_start();
        if before_ok && let Some(rest) = rest.strip_prefix('=') {
            let rest = rest.trim_start();
            let q = rest.chars().next()?;
            if q == '"' || q == '\'' {
                let end = rest[1..].find(q)?;
                return Some(rest[1..1 + end].trim().to_string());
            }
        }
        i = p + name.len();
    }
    None
}

fn line_of(text: &str, offset: usize) -> u32 {
    text[..offset].bytes().filter(|&b| b == b'\n').count() as u32 + 1
}

/// SQL of a statement body: tags and comments blanked (newlines kept, so lines stay right),
/// CDATA markers removed, entities decoded.
fn sql_text(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("<![CDATA[") {
            let end = r.find("]]>").unwrap_or(r.len());
            out.push_str(&r[..end]);
            rest = r.get(end + 3..).unwrap_or("");
        } else if rest.starts_with("<!--") {
            let end = rest.find("-->").map_or(rest.len(), |e| e + 3);
            out.extend(rest[..end].chars().filter(|c| *c == '\n'));
            rest = &rest[end..];
        } else if rest.starts_with('<') {
            let end = rest.find('>').map_or(rest.len(), |e| e + 1);
            out.push(' ');
            out.extend(rest[..end].chars().filter(|c| *c == '\n'));
            rest = &rest[end..];
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            out.push_str(&rest[..end]);
            rest = &rest[end..];
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Table names in SQL, in order of first mention, each once.
pub fn tables(sql: &str) -> Vec<String> {
    tables_with_lines(sql, 1)
        .into_iter()
        .map(|(t, _)| t)
        .collect()
}

/// Table names with the line (counted from `first_line`) they are first named on.
pub fn tables_with_lines(sql: &str, first_line: u32) -> Vec<(String, u32)> {
    // Tokens with their lines.
    let mut tokens: Vec<(String, u32)> = Vec::new();
    let mut line = first_line;
    let mut cur = String::new();
    let mut cur_line = line;
    let mut chars = sql.chars().peekable();
    let flush = |cur: &mut String, tokens: &mut Vec<(String, u32)>, l: u32| {
        if !cur.is_empty() {
            tokens.push((std::mem::take(cur), l));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                flush(&mut cur, &mut tokens, cur_line);
                line += 1;
            }
            '-' if chars.peek() == Some(&'-') => {
                flush(&mut cur, &mut tokens, cur_line);
                for d in chars.by_ref() {
                    if d == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            ',' | '(' | ')' | ';' => {
                flush(&mut cur, &mut tokens, cur_line);
                tokens.push((c.to_string(), line));
            }
            c if c.is_whitespace() => flush(&mut cur, &mut tokens, cur_line),
            c => {
                if cur.is_empty() {
                    cur_line = line;
                }
                cur.push(c);
            }
        }
    }
    flush(&mut cur, &mut tokens, cur_line);
    let mut out: Vec<(String, u32)> = Vec::new();
    let kw = |t: &str, k: &str| t.eq_ignore_ascii_case(k);
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].0.as_str();
        let takes_list = if kw(t, "from") {
            true
        } else if kw(t, "join")
            || kw(t, "into")
            || kw(t, "update")
            || (kw(t, "table") && i > 0 && kw(&tokens[i - 1].0, "truncate"))
        {
            false
        } else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while let Some((name, l)) = tokens.get(j) {
            if let Some(n) = table_name(name) {
                if !out.iter().any(|(x, _)| *x == n) {
                    out.push((n, *l));
                }
            } else {
                break;
            }
            j += 1;
            // An alias (`t_order o`, `t_order AS o`), then `,` for another table in a FROM list.
            if tokens.get(j).is_some_and(|t| kw(&t.0, "as")) {
                j += 1;
            }
            if tokens
                .get(j)
                .is_some_and(|t| is_identifier(&t.0) && !is_keyword(&t.0))
            {
                j += 1;
            }
            if takes_list && tokens.get(j).is_some_and(|t| t.0 == ",") {
                j += 1;
                continue;
            }
            break;
        }
        i = j.max(i + 1);
    }
    out
}

fn table_name(tok: &str) -> Option<String> {
    let t = tok.trim_matches(|c| c == '`' || c == '"' || c == '[' || c == ']');
    if t.is_empty() || !is_identifier(t) || is_keyword(t) || t.contains(['$', '#', '{']) {
        return None;
    }
    Some(t.to_string())
}

fn is_identifier(t: &str) -> bool {
    t.chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '`' || c == '"')
        && t.chars().next().is_some_and(|c| !c.is_ascii_digit())
}

fn is_keyword(t: &str) -> bool {
    const KW: &[&str] = &[
        "select",
        "where",
        "set",
        "values",
        "value",
        "on",
        "left",
        "right",
        "inner",
        "outer",
        "join",
        "group",
        "order",
        "by",
        "limit",
        "union",
        "and",
        "or",
        "as",
        "using",
        "having",
        "natural",
        "cross",
        "full",
        "straight_join",
        "lateral",
        "dual",
        "ignore",
        "into",
        "from",
        "offset",
        "for",
        "with",
        "when",
        "then",
        "else",
        "end",
        "case",
        "not",
        "exists",
        "in",
    ];
    KW.iter().any(|k| t.eq_ignore_ascii_case(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_found_after_from_join_into_update() {
        assert_eq!(
            tables(
                "SELECT o.id FROM t_order o LEFT JOIN t_order_item i ON i.order_id = o.id WHERE o.id = #{id}"
            ),
            ["t_order", "t_order_item"]
        );
        assert_eq!(
            tables("insert into `t_stock` (sku, qty) values (#{sku}, #{qty})"),
            ["t_stock"]
        );
        assert_eq!(tables("UPDATE t_coupon SET status = 1"), ["t_coupon"]);
        assert_eq!(
            tables("select * from a, b as bb, c where a.x in (select y from d)"),
            ["a", "b", "c", "d"]
        );
        assert_eq!(
            tables("delete from ${table} where id = 1"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn mapper_statements_have_ids_lines_and_tables() {
        let xml = br#"<?xml version="1.0"?>
<!DOCTYPE mapper>
<mapper namespace="com.shop.order.mapper.OrderMapper">
  <!-- <select id="old">select * from t_old</select> -->
  <insert id="insert">
    INSERT INTO t_order (id, user_id)
    VALUES (#{id}, #{userId})
  </insert>
  <select id="selectById" resultType="Order">
    SELECT * FROM t_order
    <where><if test="id != null">id = #{id}</if></where>
  </select>
  <update id="updateStatus"><![CDATA[
    UPDATE t_order SET status = #{status} WHERE id = #{id} AND status < 3
  ]]></update>
</mapper>
"#;
        let m = mapper(xml).unwrap();
        assert_eq!(m.namespace, "com.shop.order.mapper.OrderMapper");
        let ids: Vec<(&str, u32)> = m
            .statements
            .iter()
            .map(|s| (s.id.as_str(), s.line))
            .collect();
        assert_eq!(
            ids,
            [("insert", 5), ("selectById", 9), ("updateStatus", 13)]
        );
        assert_eq!(m.statements[0].tables, [("t_order".to_string(), 6)]);
        assert_eq!(m.statements[2].tables, [("t_order".to_string(), 14)]);
    }

    #[test]
    fn generator_mapper_xml_is_recognised_with_its_models() {
        let xml = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/shop/shop-mall/src/main/resources/com/shop/mall/mbg/mapper/OrderInfoMapper.xml"
        ))
        .unwrap();
        assert_eq!(
            generator_shape(&xml),
            Some(Shape::Generated {
                generator: MBG.into(),
                what: "mapper XML".into(),
                models: vec!["com.shop.mall.mbg.model.OrderInfo".into()],
            })
        );
    }

    #[test]
    fn generator_conventions_copied_by_hand_are_not_enough() {
        // BaseResultMap and Base_Column_List, but the statements are the author's own.
        let xml = br#"<mapper namespace="a.OrderMapper">
  <resultMap id="BaseResultMap" type="a.Order"><id column="id" property="id"/></resultMap>
  <sql id="Base_Column_List">id, status</sql>
  <select id="selectById" resultMap="BaseResultMap">select <include refid="Base_Column_List"/> from t_order where id = #{id}</select>
  <update id="markPaid">update t_order set status = 1 where id = #{id}</update>
  <insert id="insert" parameterType="a.Order">insert into t_order (status) values (#{status})</insert>
</mapper>"#;
        assert_eq!(generator_shape(xml), None);
        // A hand-written shop mapper, and XML that is no mapper at all.
        let shop = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/shop/shop-order/src/main/resources/mapper/OrderMapper.xml"
        ))
        .unwrap();
        assert_eq!(generator_shape(&shop), None);
        assert_eq!(
            generator_shape(b"<project><sql id=\"Example_Where_Clause\"/></project>"),
            None
        );
    }

    #[test]
    fn the_simple_runtime_without_example_clauses_counts_by_its_statements() {
        let xml = br#"<mapper namespace="a.UserMapper">
  <resultMap id="BaseResultMap" type="a.User"><id column="id" property="id"/></resultMap>
  <sql id="Base_Column_List">id, name</sql>
  <delete id="deleteByPrimaryKey" parameterType="java.lang.Long">delete from t_user where id = #{id}</delete>
  <insert id="insert" parameterType="a.User">insert into t_user (name) values (#{name})</insert>
  <select id="selectByPrimaryKey" resultMap="BaseResultMap">select * from t_user where id = #{id}</select>
  <select id="selectAll" resultMap="BaseResultMap">select * from t_user</select>
  <update id="updateByPrimaryKey" parameterType="a.User">update t_user set name = #{name} where id = #{id}</update>
</mapper>"#;
        let Some(Shape::Generated { models, what, .. }) = generator_shape(xml) else {
            panic!("not recognised");
        };
        assert_eq!(
            (what.as_str(), models),
            ("mapper XML", vec!["a.User".to_string()])
        );
    }
}
