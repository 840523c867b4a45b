//! Chinese questions: a zh→en glossary of programming and business terms, and a segmenter that
//! cuts a Chinese run into glossary words (forward maximum matching), so `订单超时自动取消逻辑在哪`
//! becomes `订单 / 超时 / 自动 / 取消 / 逻辑 / 在哪` → order, timeout, auto, cancel.
//!
//! Words the glossary does not know stay Chinese: the index holds CJK unigrams and bigrams, so they
//! still match Chinese comments and strings.

/// Chinese word → English words used in code. An empty list marks a filler word.
pub const GLOSSARY: &[(&str, &[&str])] = &[
    // question scaffolding (fillers)
    ("在哪里", &[]),
    ("在哪儿", &[]),
    ("在哪", &[]),
    ("哪里", &[]),
    ("哪儿", &[]),
    ("哪个", &[]),
    ("哪些", &[]),
    ("什么", &[]),
    ("怎么", &[]),
    ("如何", &[]),
    ("为什么", &[]),
    ("逻辑", &[]),
    ("代码", &[]),
    ("实现", &[]),
    ("的", &[]),
    ("了", &[]),
    ("是", &[]),
    ("在", &[]),
    ("吗", &[]),
    ("呢", &[]),
    ("和", &[]),
    ("与", &[]),
    ("或", &[]),
    ("我", &[]),
    ("要", &[]),
    ("会", &[]),
    ("一个", &[]),
    ("这个", &[]),
    ("那个", &[]),
    ("地方", &[]),
    ("位置", &[]),
    ("相关", &[]),
    ("功能", &[]),
    ("部分", &[]),
    ("时候", &[]),
    ("时", &[]),
    ("后", &[]),
    ("前", &[]),
    ("被", &[]),
    ("谁", &[]),
    ("把", &[]),
    ("从", &[]),
    ("到", &[]),
    ("对", &[]),
    ("用", &[]),
    ("里", &[]),
    // code structure
    ("调用链", &["call", "chain"]),
    ("调用", &["call", "invoke"]),
    ("流程", &["flow", "process"]),
    ("方法", &["method"]),
    ("函数", &["function"]),
    ("类", &["class"]),
    ("接口", &["interface", "api"]),
    ("枚举", &["enum"]),
    ("常量", &["constant"]),
    ("参数", &["param", "parameter"]),
    ("返回", &["return"]),
    ("结果", &["result"]),
    ("异常", &["exception"]),
    ("错误", &["error"]),
    ("日志", &["log"]),
    ("配置", &["config", "configuration", "property"]),
    ("属性", &["property"]),
    ("入口", &["entry", "main"]),
    ("定义", &["definition"]),
    ("声明", &["declare"]),
    ("控制器", &["controller"]),
    ("服务", &["service"]),
    ("网关", &["gateway"]),
    ("路由", &["route", "router"]),
    ("事件", &["event"]),
    ("监听器", &["listener"]),
    ("监听", &["listen", "listener"]),
    ("处理器", &["handler"]),
    ("处理", &["handle", "process"]),
    ("回调", &["callback", "notify"]),
    ("通知", &["notify", "notification"]),
    ("消息", &["message"]),
    ("队列", &["queue"]),
    ("定时任务", &["scheduled", "job", "task"]),
    ("定时", &["schedule", "scheduled", "timer"]),
    ("任务", &["task", "job"]),
    ("线程", &["thread"]),
    ("线程池", &["thread", "pool", "executor"]),
    ("锁", &["lock"]),
    ("事务", &["transaction", "transactional"]),
    ("重试", &["retry"]),
    ("幂等", &["idempotent"]),
    ("缓存", &["cache"]),
    ("数据库", &["database", "db"]),
    ("表", &["table"]),
    ("查询", &["query", "find", "select"]),
    ("新增", &["add", "create", "insert"]),
    ("添加", &["add"]),
    ("创建", &["create"]),
    ("修改", &["update", "modify"]),
    ("更新", &["update"]),
    ("删除", &["delete", "remove"]),
    ("移除", &["remove"]),
    ("保存", &["save"]),
    ("读取", &["read"]),
    ("写入", &["write"]),
    ("加载", &["load"]),
    ("复制", &["copy"]),
    ("拷贝", &["copy"]),
    ("移动", &["move"]),
    ("比较", &["compare"]),
    ("排序", &["sort"]),
    ("过滤", &["filter"]),
    ("过滤器", &["filter"]),
    ("拦截器", &["interceptor"]),
    ("比较器", &["comparator"]),
    ("转换", &["convert"]),
    ("解析", &["parse"]),
    ("格式化", &["format"]),
    ("序列化", &["serialize"]),
    ("反序列化", &["deserialize"]),
    ("编码", &["encode", "encoding"]),
    ("解码", &["decode"]),
    ("校验", &["validate", "check"]),
    ("验证", &["verify", "validate"]),
    ("检查", &["check"]),
    ("签名", &["sign", "signature"]),
    ("验签", &["verify", "signature"]),
    ("加密", &["encrypt"]),
    ("解密", &["decrypt"]),
    ("启动", &["start", "startup"]),
    ("关闭", &["close", "shutdown"]),
    ("初始化", &["init", "initialize"]),
    ("销毁", &["destroy"]),
    ("发送", &["send"]),
    ("接收", &["receive"]),
    ("请求", &["request"]),
    ("响应", &["response"]),
    ("上传", &["upload"]),
    ("下载", &["download"]),
    ("导出", &["export"]),
    ("导入", &["import"]),
    ("批量", &["batch"]),
    ("同步", &["sync"]),
    ("异步", &["async"]),
    ("并发", &["concurrent"]),
    ("分页", &["page"]),
    ("遍历", &["iterate", "walk"]),
    ("递归", &["recursive"]),
    ("监控", &["monitor"]),
    ("观察者", &["observer"]),
    ("超时", &["timeout", "expire"]),
    ("过期", &["expire"]),
    ("自动", &["auto"]),
    ("取消", &["cancel"]),
    ("关闭订单", &["close", "order"]),
    ("状态机", &["state", "machine"]),
    ("状态", &["status", "state"]),
    ("字段", &["field"]),
    ("字符串", &["string"]),
    ("字符", &["char", "character"]),
    ("字节", &["byte"]),
    ("大小", &["size"]),
    ("长度", &["length"]),
    ("路径", &["path"]),
    ("文件名", &["filename", "name"]),
    ("文件", &["file"]),
    ("目录", &["directory", "dir"]),
    ("扩展名", &["extension"]),
    ("后缀", &["suffix", "extension"]),
    ("流", &["stream"]),
    ("输入", &["input"]),
    ("输出", &["output"]),
    ("行", &["line"]),
    ("权限", &["permission"]),
    ("角色", &["role"]),
    ("菜单", &["menu"]),
    ("令牌", &["token"]),
    ("会话", &["session"]),
    ("密码", &["password"]),
    ("登录", &["login"]),
    ("注册", &["register"]),
    ("登出", &["logout"]),
    ("用户", &["user"]),
    ("账户", &["account"]),
    ("账号", &["account"]),
    ("获取", &["get", "fetch"]),
    ("获得", &["get", "obtain"]),
    ("得到", &["get"]),
    ("计算", &["compute", "calculate"]),
    ("生成", &["generate", "create"]),
    ("判断", &["check", "is"]),
    ("设置", &["set", "config"]),
    ("启用", &["enable"]),
    ("禁用", &["disable"]),
    ("清理", &["clean", "cleanup"]),
    ("清空", &["clear"]),
    ("合并", &["merge"]),
    ("拆分", &["split"]),
    ("分割", &["split"]),
    ("拼接", &["concat", "join"]),
    ("匹配", &["match"]),
    ("通配符", &["wildcard"]),
    ("规范化", &["normalize"]),
    ("监视", &["watch", "monitor"]),
    ("变化", &["change"]),
    ("变更", &["change"]),
    ("修改时间", &["last", "modified"]),
    ("时间", &["time"]),
    ("日期", &["date"]),
    ("注册表", &["registry"]),
    ("注解", &["annotation"]),
    ("反射", &["reflection"]),
    ("代理", &["proxy"]),
    ("连接", &["connection", "connect"]),
    ("连接池", &["connection", "pool"]),
    ("超时时间", &["timeout"]),
    ("关闭流", &["close", "stream"]),
    ("缓冲区", &["buffer"]),
    ("缓冲", &["buffer"]),
    ("临时", &["temp", "temporary"]),
    ("大小写", &["case"]),
    ("敏感", &["sensitive"]),
    ("忽略", &["ignore"]),
    ("跳过", &["skip"]),
    ("重命名", &["rename"]),
    ("追加", &["append"]),
    ("截断", &["truncate"]),
    ("最后", &["last"]),
    ("第一个", &["first"]),
    ("下一个", &["next"]),
    ("空", &["empty", "null"]),
    ("默认", &["default"]),
    ("默认值", &["default"]),
    ("版本", &["version"]),
    // business
    ("订单", &["order"]),
    ("支付", &["pay", "payment"]),
    ("付款", &["pay", "payment"]),
    ("退款", &["refund"]),
    ("库存", &["stock", "inventory"]),
    ("扣减", &["deduct", "decrease"]),
    ("扣除", &["deduct"]),
    ("商品", &["product", "goods", "item", "sku"]),
    ("购物车", &["cart"]),
    ("优惠券", &["coupon"]),
    ("价格", &["price"]),
    ("金额", &["amount"]),
    ("余额", &["balance"]),
    ("商户", &["merchant"]),
    ("商家", &["merchant", "seller"]),
    ("短信", &["sms"]),
    ("邮件", &["mail", "email"]),
    ("地址", &["address"]),
    ("物流", &["logistics", "shipping"]),
    ("发货", &["ship", "delivery"]),
    ("收货", &["receive"]),
    ("评价", &["review", "comment"]),
    ("积分", &["points"]),
    ("会员", &["member"]),
    ("对账", &["reconcile"]),
    ("结算", &["settle", "settlement"]),
    ("提现", &["withdraw"]),
    ("充值", &["recharge", "topup"]),
    ("转账", &["transfer"]),
    ("流水", &["journal", "flow", "record"]),
    ("审核", &["audit", "review"]),
    ("审批", &["approve", "approval"]),
    ("冻结", &["freeze"]),
    ("解冻", &["unfreeze"]),
    ("发票", &["invoice"]),
    ("客户", &["customer"]),
    ("供应商", &["supplier"]),
    ("仓库", &["warehouse"]),
    ("促销", &["promotion"]),
    ("活动", &["activity", "campaign"]),
];

/// One piece of a segmented Chinese run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A glossary word and its English words (empty for fillers).
    Known(&'static str, &'static [&'static str]),
    /// Characters the glossary does not cover, kept as written.
    Unknown(String),
}

/// Cuts a run of CJK characters into glossary words, longest match first; neighbouring unknown
/// characters are kept together.
pub fn segment(run: &str) -> Vec<Segment> {
    let chars: Vec<char> = run.chars().collect();
    let max_len = GLOSSARY
        .iter()
        .map(|(w, _)| w.chars().count())
        .max()
        .unwrap_or(1);
    let mut out = Vec::new();
    let mut unknown = String::new();
    let mut i = 0;
    while i < chars.len() {
        let mut matched = None;
        for len in (1..=max_len.min(chars.len() - i)).rev() {
            let cand: String = chars[i..i + len].iter().collect();
            if let Some((w, en)) = GLOSSARY.iter().find(|(w, _)| *w == cand) {
                matched = Some((len, *w, *en));
                break;
            }
        }
        match matched {
            Some((len, w, en)) => {
                if !unknown.is_empty() {
                    out.push(Segment::Unknown(std::mem::take(&mut unknown)));
                }
                out.push(Segment::Known(w, en));
                i += len;
            }
            None => {
                unknown.push(chars[i]);
                i += 1;
            }
        }
    }
    if !unknown.is_empty() {
        out.push(Segment::Unknown(unknown));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_a_business_question_longest_first() {
        let segs = segment("订单超时自动取消逻辑在哪");
        let words: Vec<&str> = segs
            .iter()
            .map(|s| match s {
                Segment::Known(w, _) => *w,
                Segment::Unknown(_) => "?",
            })
            .collect();
        assert_eq!(words, vec!["订单", "超时", "自动", "取消", "逻辑", "在哪"]);
    }

    #[test]
    fn unknown_characters_stay_together() {
        let segs = segment("支付宝回调");
        assert_eq!(segs[0], Segment::Known("支付", &["pay", "payment"]));
        assert_eq!(segs[1], Segment::Unknown("宝".into()));
        assert!(matches!(segs[2], Segment::Known("回调", _)));
    }

    #[test]
    fn glossary_has_no_duplicate_words() {
        let mut seen = std::collections::HashSet::new();
        for (w, _) in GLOSSARY {
            assert!(seen.insert(*w), "duplicate glossary word {w}");
        }
    }
}
