use super::*;

fn stems(q: &Question) -> Vec<&str> {
    q.terms
        .iter()
        .filter(|t| t.origin != TermOrigin::Synonym)
        .map(|t| t.stem.as_str())
        .collect()
}

#[test]
fn intents_from_phrasing() {
    assert_eq!(
        understand("Who calls OrderService.cancel?").intent,
        Intent::Callers
    );
    assert_eq!(
        understand("Where is PaymentGateway.verify used?").intent,
        Intent::Callers
    );
    assert_eq!(
        understand("What happens when I call checkout()?").intent,
        Intent::Flow
    );
    assert_eq!(
        understand("Where is the retry policy defined?").intent,
        Intent::Definition
    );
    assert_eq!(
        understand("Which interface do I implement to receive events?").intent,
        Intent::Definition
    );
    assert_eq!(
        understand("Where is the timeout setting read?").intent,
        Intent::Config
    );
    assert_eq!(
        understand("Where is the invoice total computed?").intent,
        Intent::Locate
    );
    assert_eq!(understand("谁调用了 deductStock").intent, Intent::Callers);
    assert_eq!(understand("下单流程是怎样的").intent, Intent::Flow);
    let trace = "java.lang.IllegalStateException: boom\n\tat com.x.OrderService.cancel(OrderService.java:42)\n\tat com.x.Api.handle(Api.java:10)";
    let q = understand(trace);
    assert_eq!(q.intent, Intent::Trace);
    assert_eq!(
        q.frames[0],
        Frame {
            class: "com.x.OrderService".into(),
            method: "cancel".into(),
            file: Some("OrderService.java".into()),
            line: Some(42),
            cause: 0,
        }
    );
}

#[test]
fn trace_frames_know_their_cause_lambdas_and_modules() {
    let trace = "java.lang.RuntimeException: wrapped\n\tat java.base/java.lang.Thread.run(Thread.java:833)\n\tat com.x.Api.lambda$handle$0(Api.java:12)\nCaused by: java.io.IOException: disk\n\tat app//com.x.Store$Writer.<init>(Store.java:7)\n\t... 3 more";
    let q = understand(trace);
    assert_eq!(q.intent, Intent::Trace);
    let got: Vec<(&str, &str, Option<u32>, u16)> = q
        .frames
        .iter()
        .map(|f| (f.class.as_str(), f.method.as_str(), f.line, f.cause))
        .collect();
    assert_eq!(
        got,
        [
            ("java.lang.Thread", "run", Some(833), 0),
            ("com.x.Api", "handle", Some(12), 0),
            ("com.x.Store.Writer", "<init>", Some(7), 1),
        ]
    );
}

#[test]
fn identifiers_are_found_and_split() {
    let q = understand("Who calls FileStore.lastModifiedUnchecked and deduct_stock()?");
    let names: Vec<&str> = q.identifiers.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(
        names,
        vec!["FileStore.lastModifiedUnchecked", "deduct_stock"]
    );
    assert_eq!(q.identifiers[0].qualifier.as_deref(), Some("FileStore"));
    assert_eq!(q.identifiers[0].name, "lastModifiedUnchecked");
    let s = stems(&q);
    assert!(s.contains(&"modifi"), "{s:?}");
    assert!(s.contains(&"deduct"), "{s:?}");
    // Plain capitalised words are not identifiers.
    assert!(
        understand("Where does Windows handle this?")
            .identifiers
            .is_empty()
    );
}

#[test]
fn stop_words_drop_and_synonyms_come_in_low() {
    let q = understand("Where is the code that removes an expired session?");
    let s = stems(&q);
    assert!(
        s.contains(&"remov") && s.contains(&"expir") && s.contains(&"session"),
        "{s:?}"
    );
    assert!(!s.contains(&"code") && !s.contains(&"where"), "{s:?}");
    let del = q
        .terms
        .iter()
        .find(|t| t.stem == "delet")
        .expect("synonym of remove");
    assert!(del.weight < 1.0);
}

/// Entries written for these tests in CC-CEDICT's format (not copied from it).
const ZH_SAMPLE: &str = "\
訂單 订单 [ding4 dan1] /(purchase) order/
超時 超时 [chao1 shi2] /to exceed the time limit/(computing) timeout/
取消 取消 [qu3 xiao1] /to cancel; to call off/
回調 回调 [hui2 diao4] /(computing) callback/
";

#[test]
fn chinese_questions_translate_by_segmenter_and_dictionary() {
    let dict = zh::Dictionary::parse(ZH_SAMPLE);
    let q = understand_with("订单超时自动取消逻辑在哪?", Some(&dict));
    let s = stems(&q);
    for w in ["order", "timeout", "cancel"] {
        assert!(s.contains(&w), "{w} missing from {s:?}");
    }
    // The main sense weighs as a question word; a further sense less.
    let weight = |stem: &str| q.terms.iter().find(|t| t.stem == stem).unwrap().weight;
    assert_eq!(weight("cancel"), 1.0);
    assert!(weight("revok") < 1.0);
    // Not in the dictionary: kept for matching Chinese comments; function words dropped.
    assert_eq!(q.cjk, ["自动"]);
    assert_eq!(q.zh_untranslated, None);
    let q = understand_with("支付宝回调在哪里", Some(&dict));
    assert!(stems(&q).contains(&"callback"));
    assert!(q.cjk.iter().any(|c| c.contains('宝')), "{:?}", q.cjk);
}

#[test]
fn without_a_dictionary_chinese_is_searched_as_written_and_said_so() {
    let q = understand_with("订单超时自动取消逻辑在哪?", None);
    assert!(q.terms.is_empty(), "{:?}", q.terms);
    assert!(q.cjk.contains(&"订单".to_string()), "{:?}", q.cjk);
    assert!(q.zh_untranslated.is_some());
    // English questions need no dictionary and say nothing about one.
    assert_eq!(
        understand_with("Where is the order cancelled?", None).zh_untranslated,
        None
    );
}

#[test]
fn asking_for_examples() {
    assert!(understand("Is there an example that configures a rolling appender?").wants_examples);
    assert!(understand("有没有示例代码？").wants_examples);
    assert!(!understand("Where is the rolling appender configured?").wants_examples);
}

#[test]
fn a_call_on_a_variable_is_an_identifier_and_with_arguments_a_line_of_the_askers_code() {
    let q = understand(r#"Walk me through log.info("user {} logged in", name) to the appender"#);
    let names: Vec<(&str, bool)> = q
        .identifiers
        .iter()
        .map(|i| (i.text.as_str(), i.snippet))
        .collect();
    assert_eq!(names, vec![("log.info", true)]);
    assert_eq!(q.identifiers[0].qualifier.as_deref(), Some("log"));
    // Without arguments it names the method; on a type it is not the asker's variable.
    let q = understand("Who calls mapper.readValue() and FileUtils.copyFile(src, dest)?");
    let names: Vec<(&str, bool)> = q
        .identifiers
        .iter()
        .map(|i| (i.text.as_str(), i.snippet))
        .collect();
    assert_eq!(
        names,
        vec![("mapper.readValue", false), ("FileUtils.copyFile", false)]
    );
}

#[test]
fn literals_are_quoted_or_dotted() {
    let q = understand(
        "Where is the os.name property read, and what does 'tail -f' do to the file name?",
    );
    assert!(
        q.literals.contains(&"os.name".to_string()),
        "{:?}",
        q.literals
    );
    assert!(
        q.literals.contains(&"tail -f".to_string()),
        "{:?}",
        q.literals
    );
    assert!(q.identifiers.is_empty(), "{:?}", q.identifiers);
}

#[test]
fn numbers_of_three_digits_or_more_are_terms() {
    let q =
        understand("Where does it answer 403 when the port 8005 gets a bad command in 2 tries?");
    let stems: Vec<&str> = q.terms.iter().map(|t| t.stem.as_str()).collect();
    assert!(stems.contains(&"403"), "{stems:?}");
    assert!(stems.contains(&"8005"), "{stems:?}");
    assert!(!stems.contains(&"2"), "{stems:?}");
}

#[test]
fn java_vocabulary_synonyms_reach_the_code_words() {
    // `await`, `coerce` and `lastModified` are what the code says for these question words.
    let q = understand("where does it wait until a value is converted, comparing the timestamp?");
    for s in ["await", "coerc", "modifi"] {
        assert!(
            q.terms
                .iter()
                .any(|t| t.stem == s && t.origin == TermOrigin::Synonym),
            "{s} missing: {:?}",
            q.terms.iter().map(|t| &t.stem).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_type_word_in_a_question_about_behaviour_keeps_it_a_locate_question() {
    let q = understand("Which code decides whether a JAR gets skipped during annotation scanning?");
    assert_eq!(q.intent, Intent::Locate);
    let q = understand("What's the interface a component in the request pipeline implements?");
    assert_eq!(q.intent, Intent::Definition);
    assert_eq!(q.kind_hint, Some(KindHint::Interface));
    let q = understand("Which node type knows its tag handler class?");
    assert_eq!(q.intent, Intent::Definition);
}

#[test]
fn flow_questions_phrased_as_a_path_or_a_chain() {
    for q in [
        "When I call Jsoup.parse on a string, what's the path from that call down to the tokenizer loop?",
        "How does element.select(\"div > p\") get from the CSS string to the matching elements?",
        "If I run HTML through the cleaner, what's the chain down to the attribute check?",
        "With a BackgroundInitializer, what happens between start() and initialize()?",
        "On startup, how does the server get from main() to parsing its config file?",
        "How is the config found on its own? Trace it from the binding to where it is parsed.",
        "Which methods are involved, from the appender down to the converters?",
        "What happens to a record after Pipeline.run is called?",
        "Trace a record from Pipeline.run to where it is printed.",
        "Walk through what the scheduler does after a job fails.",
        "What is the flow from the request to the database?",
        "请求的处理流程是怎样的？",
    ] {
        assert_eq!(understand(q).intent, Intent::Flow, "{q}");
    }
    // "flow" inside a word asks for no chain.
    for q in [
        "Where is the buffer overflow checked?",
        "Which class starts a workflow?",
    ] {
        assert_ne!(understand(q).intent, Intent::Flow, "{q}");
    }
    // A stack trace is not a path to trace.
    assert_ne!(
        understand("What does this stack trace from the parser point to?").intent,
        Intent::Flow
    );
}

#[test]
fn a_record_is_data_unless_the_java_kind_is_named() {
    assert_ne!(
        understand("Where is a log record formatted?").intent,
        Intent::Definition
    );
    assert_eq!(
        understand("Which record type holds the user's settings?").intent,
        Intent::Definition
    );
}

#[test]
fn a_chain_phrase_after_where_describes_the_behaviour_to_locate() {
    // "how does the flag change that", "step by step" after a where-question: still locate.
    assert_eq!(
        understand("Where does the class loader pick the lookup order, and how does the 'delegate' flag change it?").intent,
        Intent::Locate
    );
    assert_eq!(
        understand("Where does the tree walk that path step by step?").intent,
        Intent::Locate
    );
    // Opening with them, the question asks for a chain.
    assert_eq!(
        understand(
            "How does an idle session end up expired? Which code checks it and where is it removed?"
        )
        .intent,
        Intent::Flow
    );
    assert_eq!(
        understand("Walk me from where the parser notices it to where the exception is thrown.")
            .intent,
        Intent::Flow
    );
}

#[test]
fn a_property_of_a_bean_is_not_a_setting() {
    assert_eq!(
        understand("Where is a Java property name turned into snake case?").intent,
        Intent::Locate
    );
    assert_eq!(
        understand("Where does it read the system property app.home?").intent,
        Intent::Config
    );
    assert_eq!(
        understand("Where does the servlet read its init-params?").intent,
        Intent::Config
    );
}

#[test]
fn behaviour_words_keep_a_type_word_from_making_a_definition_question() {
    assert_eq!(
        understand(
            "Where is the order of a bean's properties decided (the order annotation first)?"
        )
        .intent,
        Intent::Locate
    );
    assert_eq!(
        understand("JSON 对象是在哪里被转换成 Map 类型的？").intent,
        Intent::Locate
    );
    assert_eq!(
        understand("Which places call the tokeniser's consumeEntity?").intent,
        Intent::Callers
    );
}

#[test]
fn a_negated_or_compound_defined_describes_a_situation() {
    for q in [
        "Where is the default after :- used when the variable isn't defined?",
        "Where does it fall back when the property is not defined anywhere?",
        "Where are user-defined converters looked up by name?",
        "变量未定义的时候默认值是在哪里用到的？",
    ] {
        assert_eq!(understand(q).intent, Intent::Locate, "{q}");
    }
    for q in [
        "Where is the Level class defined?",
        "Where are the rolling constants declared?",
        "Level 类是在哪里定义的？",
    ] {
        assert_eq!(understand(q).intent, Intent::Definition, "{q}");
    }
}

#[test]
fn kind_words_are_weak_terms_outside_definition_questions() {
    let q = understand("Where does it parse a type written as a string?");
    assert_eq!(
        q.weight_of(&terms::stem("type")),
        TermOrigin::KindWord.weight()
    );
    let q = understand("Which type describes a byte order mark?");
    assert_eq!(q.intent, Intent::Definition);
    assert_eq!(q.weight_of(&terms::stem("type")), 0.0);
}

#[test]
fn neighbouring_content_words_are_pairs() {
    let q = understand("I get an error saying no serializer was found.");
    assert!(
        q.pairs
            .contains(&("serializer".to_string(), "found".to_string())),
        "{:?}",
        q.pairs
    );
    assert!(!q.pairs.iter().any(|(a, b)| a == "was" || b == "was"));
}

#[test]
fn asking_about_tests_takes_more_than_the_word_test() {
    assert!(!understand("Where is the a*n+b position test done?").wants_tests);
    assert!(understand("Which tests cover the parser?").wants_tests);
    assert!(understand("Where is the unit test for getExtension?").wants_tests);
    assert!(understand("Is there a JUnit case for it?").wants_tests);
    assert!(understand("tests of FilenameUtils.normalize").wants_tests);
    // Benchmarks are indexed as test code; asking for one brings it back.
    assert!(understand("Which benchmark measures buffer copies?").wants_tests);
    // A bug report says tests were added; it does not ask for them.
    assert!(
        !understand("Reader passes the count of chars read.\n\nAdded to tests to cover the bug")
            .wants_tests
    );
}

#[test]
fn a_leading_underscore_marks_an_identifier() {
    let q = understand("Which methods call ObjectMapper's internal _convert method?");
    let names: Vec<&str> = q.identifiers.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(names, ["ObjectMapper", "ObjectMapper._convert"]);
    assert_eq!(q.intent, Intent::Callers);
    // A lone underscore or a short word is not one.
    assert!(
        understand("Where is _ used as a separator?")
            .identifiers
            .is_empty()
    );
}

#[test]
fn a_possessive_names_the_member_of_a_type() {
    let q = understand("Which methods call MailSink's publish method?");
    let texts: Vec<&str> = q.identifiers.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(texts, ["MailSink", "MailSink.publish"]);
    assert_eq!(q.identifiers[1].qualifier.as_deref(), Some("MailSink"));
    // Without a member word after it, the possessive names nothing more.
    let q = understand("What is ObjectMapper's role in reading JSON?");
    let texts: Vec<&str> = q.identifiers.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(texts, ["ObjectMapper"]);
}

#[test]
fn used_asks_for_callers_only_when_the_named_code_is_what_is_used() {
    assert_eq!(
        understand("Where is FileUtils.copyFile used?").intent,
        Intent::Callers
    );
    assert_eq!(
        understand("Where is CacheKey used by the loaders?").intent,
        Intent::Callers
    );
    assert_ne!(
        understand("With SizeAndTimeBasedRollingPolicy, where does it bump the %i number used for the archive name?").intent,
        Intent::Callers
    );
}

#[test]
fn the_class_named_by_its_kind_is_an_identifier() {
    let names = |q: &str| -> Vec<String> {
        understand(q)
            .identifiers
            .into_iter()
            .map(|i| i.text)
            .collect()
    };
    assert_eq!(
        names("Which methods call processInclude in the Parser class?"),
        ["processInclude", "Parser"]
    );
    assert_eq!(names("Is it done in the Valve interface?"), ["Valve"]);
    // Not a language, not an acronym, not a kind word alone.
    assert!(names("Where is the Java class loaded?").is_empty());
    assert!(names("Where is the Python class registered?").is_empty());
    assert!(names("Which method reads the JSON class name?").is_empty());
}

#[test]
fn a_message_reported_after_saying_is_kept_in_order() {
    let q = understand(
        "If I serialize an empty bean I get an error saying no serializer was found. Where is it raised?",
    );
    assert_eq!(q.message, ["no", "serializer", "found"]);
    // No cue, no message: the question's own words are not a message.
    assert!(
        understand("Where is the file name pattern parsed?")
            .message
            .is_empty()
    );
}

#[test]
fn impact_words_ask_only_in_a_question_not_in_a_reported_statement() {
    for asked in [
        "What is the impact of changing StockService.restoreStock?",
        "impact of changing OrderService.cancel",
        "Which callers are affected if I change Reader.read",
        "If I change PaymentGateway.verify, what breaks?",
        "这个改动会影响哪些地方？",
        "I am renaming a field. Show what it affects.",
    ] {
        assert_eq!(understand(asked).intent, Intent::Impact, "{asked}");
    }
    // A bug report states what a defect affects; it asks where the defect is.
    let report = "input.AbstractCharacterFilterReader passes count of chars read\n\nA bug in the read method causes the filter to receive the count.\n\nThis affects subclasses CharacterFilterReader and CharacterSetFilterReader also.";
    assert_eq!(understand(report).intent, Intent::Locate);
    assert_eq!(
        understand("The cache has a big performance impact. Where is it evicted?").intent,
        Intent::Locate
    );
}

#[test]
fn kind_flow_and_config_words_of_a_stated_context_do_not_set_the_intent() {
    // The context a question gives states; the sentence that asks sets the intent.
    let q = "In the rolling appender config we set maxFileSize to \"50MB\". Where does that string get turned into bytes?";
    assert_eq!(understand(q).intent, Intent::Locate);
    let report = "Sanitize double slash after prefix\n\nThis change ensures that slashes of these type are merged.";
    let q = understand(report);
    assert_eq!((q.intent, q.kind_hint), (Intent::Locate, None));
    let report = "The read loop ends up in a busy wait. Fix the flow control of the pipe.";
    assert_eq!(understand(report).intent, Intent::Locate);
    // Asked, the same words still count.
    assert_eq!(
        understand("Where is the timeout setting read?").intent,
        Intent::Config
    );
    assert_eq!(
        understand("Which class holds the retry policy?").intent,
        Intent::Definition
    );
}

#[test]
fn a_text_that_asks_nothing_is_a_report() {
    // Bug reports: titles and statements, however many sentences.
    for report in [
        "input.AbstractCharacterFilterReader passes count of chars read",
        "Tweak org.apache.commons.io.input.CircularInputStream.\n\nInfiniteCircularInputStream is not infinite if its input buffer contains -1.",
        "Add a SequenceReader similar to java.io.SequenceInputStream. Refactor common code.",
        "OrderService status update",
        "订单状态更新逻辑",
    ] {
        assert!(understand(report).reports, "{report}");
    }
    // Questions, asked by a question mark, an opener or a Chinese question word.
    for question in [
        "With SizeAndTimeBasedRollingPolicy, when the file is too big, where is it rolled?",
        "Where does CircularInputStream wrap around",
        "The reader is slow. How does SequenceReader pick the next reader",
        "Show me the callers of deductStock",
        "请求头太长就报 TooLongFrameException，这个检查是在哪里做的",
        "订单状态是怎么更新的",
    ] {
        assert!(!understand(question).reports, "{question}");
    }
}
