//! Every `--json` output parses and matches its published schema (`docs/json/*.schema.json`,
//! JSON Schema draft 2020-12): each command runs on the corpus and the regression programs
//! (passing and failing oracles, with their seeded bugs), and each document is validated.
//!
//! The validator here implements exactly the keywords the schemas use and rejects any other
//! keyword, so a schema can never rely on a check this test silently skips. (The schemas are
//! standard: any JSON Schema validator accepts them; `docs/json/README.md` says how.)

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

/// The published schemas, by file name (`witness.schema.json`).
fn schemas() -> BTreeMap<String, Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".schema.json") {
            let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{name} is not JSON: {e}"));
            out.insert(name, doc);
        }
    }
    out
}

/// Keywords that only annotate.
const ANNOTATIONS: [&str; 5] = ["$schema", "$id", "title", "description", "$defs"];

struct Validator<'s> {
    schemas: &'s BTreeMap<String, Value>,
    errors: Vec<String>,
}

impl Validator<'_> {
    /// Validates `v` at `at` against `s`, a subschema of the document `doc`.
    fn check(&mut self, doc: &str, s: &Value, v: &Value, at: &str) {
        let s = match s {
            Value::Bool(true) => return,
            Value::Bool(false) => return self.errors.push(format!("{at}: nothing is allowed here")),
            Value::Object(s) => s,
            _ => panic!("{doc}: a schema is an object or a boolean, at {at}"),
        };
        for (k, arg) in s {
            match k.as_str() {
                k if ANNOTATIONS.contains(&k) => {}
                "$ref" => {
                    let r = arg.as_str().unwrap();
                    let (file, pointer) = r.split_once('#').unwrap_or((r, ""));
                    let file = if file.is_empty() { doc } else { file };
                    let target = self.schemas.get(file).unwrap_or_else(|| panic!("{doc}: $ref to unknown schema {file}")).pointer(pointer);
                    let target = target.unwrap_or_else(|| panic!("{doc}: $ref {r} resolves to nothing")).clone();
                    self.check(file, &target, v, at);
                }
                "type" => {
                    let types: Vec<&str> = match arg {
                        Value::String(t) => vec![t],
                        Value::Array(ts) => ts.iter().map(|t| t.as_str().unwrap()).collect(),
                        _ => panic!("{doc}: bad type at {at}"),
                    };
                    if !types.iter().any(|t| is_type(v, t)) {
                        self.errors.push(format!("{at}: {v} is not of type {types:?}"));
                    }
                }
                "enum" => {
                    if !arg.as_array().unwrap().contains(v) {
                        self.errors.push(format!("{at}: {v} is not one of {arg}"));
                    }
                }
                "const" => {
                    if arg != v {
                        self.errors.push(format!("{at}: {v} is not {arg}"));
                    }
                }
                "minimum" => {
                    if v.as_f64().is_some_and(|x| x < arg.as_f64().unwrap()) {
                        self.errors.push(format!("{at}: {v} is below {arg}"));
                    }
                }
                "required" => {
                    if let Value::Object(o) = v {
                        for r in arg.as_array().unwrap() {
                            if !o.contains_key(r.as_str().unwrap()) {
                                self.errors.push(format!("{at}: missing {r}"));
                            }
                        }
                    }
                }
                "properties" => {
                    if let Value::Object(o) = v {
                        for (name, sub) in arg.as_object().unwrap() {
                            if let Some(x) = o.get(name) {
                                self.check(doc, sub, x, &format!("{at}.{name}"));
                            }
                        }
                    }
                }
                "additionalProperties" => {
                    if let Value::Object(o) = v {
                        let declared = s.get("properties").and_then(Value::as_object);
                        for (name, x) in o {
                            if !declared.is_some_and(|d| d.contains_key(name)) {
                                self.check(doc, arg, x, &format!("{at}.{name}"));
                            }
                        }
                    }
                }
                "prefixItems" => {
                    if let Value::Array(a) = v {
                        for (i, (sub, x)) in arg.as_array().unwrap().iter().zip(a).enumerate() {
                            self.check(doc, sub, x, &format!("{at}[{i}]"));
                        }
                    }
                }
                "items" => {
                    if let Value::Array(a) = v {
                        let skip = s.get("prefixItems").and_then(Value::as_array).map_or(0, Vec::len);
                        for (i, x) in a.iter().enumerate().skip(skip) {
                            self.check(doc, arg, x, &format!("{at}[{i}]"));
                        }
                    }
                }
                "oneOf" => {
                    let matching = arg
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|sub| {
                            let mut inner = Validator { schemas: self.schemas, errors: vec![] };
                            inner.check(doc, sub, v, at);
                            inner.errors.is_empty()
                        })
                        .count();
                    if matching != 1 {
                        self.errors.push(format!("{at}: {} of oneOf's schemas match {}, not exactly one", matching, short(v)));
                    }
                }
                other => panic!("{doc}: keyword `{other}` at {at} is not implemented by this test's validator; implement it or do without"),
            }
        }
    }
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_u64() || v.is_i64(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => panic!("unknown type {t}"),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    s.chars().take(160).collect()
}

/// Runs racefuzz with `args` and returns its stdout as JSON, whatever its exit code (a
/// failing oracle exits 1 and still prints its document); `None` if it refused the input
/// (exit 2, nothing on stdout).
fn try_json_of(args: &[&str]) -> Option<Value> {
    let (code, out, err) = super::cli::racefuzz(args);
    if code == 2 && out.is_empty() {
        return None;
    }
    Some(serde_json::from_str(&out).unwrap_or_else(|e| panic!("racefuzz {}: stdout is not JSON ({e}); stderr: {err}", args.join(" "))))
}

/// As [`try_json_of`], for inputs racefuzz must accept.
fn json_of(args: &[&str]) -> Value {
    try_json_of(args).unwrap_or_else(|| panic!("racefuzz {} refused its input", args.join(" ")))
}

/// A `// key: value` header line of a regression program.
fn header(path: &Path, key: &str) -> Option<String> {
    racefuzz::corpus::header(&std::fs::read_to_string(path).unwrap(), key).map(str::to_string)
}

fn race_files(dir: &str) -> Vec<std::path::PathBuf> {
    racefuzz::corpus::race_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
}

#[test]
fn every_json_output_matches_its_schema() {
    let schemas = schemas();
    let mut v = Validator { schemas: &schemas, errors: vec![] };
    let mut validated: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failing_items_with_witness = 0;
    let mut final_states = 0;
    let mut refused = vec![];
    let mut check = |v: &mut Validator<'_>, schema: &'static str, args: &[&str]| -> Value {
        let Some(doc) = try_json_of(args) else {
            refused.push(args.join(" "));
            return Value::Null;
        };
        let before = v.errors.len();
        v.check(schema, &schemas[schema], &doc, "$");
        for e in &mut v.errors[before..] {
            *e = format!("racefuzz {}: {e}", args.join(" "));
        }
        *validated.entry(schema).or_default() += 1;
        doc
    };
    let corpus = race_files("corpus");
    for f in &corpus {
        let f = f.to_str().unwrap();
        // Naik-Aiken's programs run on their own instrumented semantics, which `explore`
        // refuses (exit 2, pointing at `check naik-aiken-sound`).
        if f.contains("/naikaiken/") {
            continue;
        }
        let doc = check(&mut v, "explore.schema.json", &["explore", f, "--json"]);
        final_states += doc["runs"].as_array().into_iter().flatten().filter(|r| r["final_states"].as_array().is_some_and(|s| !s.is_empty())).count();
        // Replay the witness, if any (racerdx pairs name their methods).
        let (Some(schedule), Some(run)) = (doc["witness"]["schedule"].as_str(), doc["runs"].as_array().and_then(|rs| rs.iter().find(|r| !r["witness"].is_null()))) else {
            continue;
        };
        let pair = run["setup"].as_str().unwrap().replace(" ∥ ", ",");
        let mut args = vec!["replay", f, "--schedule", schedule, "--json"];
        if doc["dialect"] == "racerdx" {
            args.extend(["--pair", &pair]);
        }
        check(&mut v, "replay.schema.json", &args);
    }
    for f in race_files("tests/regress") {
        let (Some(oracle), f) = (header(&f, "oracle"), f.to_str().unwrap()) else { continue };
        let mutant = header(Path::new(f), "mutant").filter(|m| m != "none");
        let mut args = vec!["check", &oracle, f, "--json"];
        if let Some(m) = &mutant {
            args.extend(["--mutant", m]);
        }
        let doc = check(&mut v, "check.schema.json", &args);
        failing_items_with_witness += doc["items"].as_array().unwrap().iter().filter(|i| i["status"] == "violated" && !i["witness"].is_null()).count();
        check(&mut v, "check.schema.json", &["check", &oracle, f, "--json"]);
    }
    check(&mut v, "mutants.schema.json", &["mutants", "--json"]);
    // Campaigns: a passing one, and a hunt with findings, shrunk (into a scratch folder).
    let out = std::env::temp_dir().join(format!("racefuzz-json-{}", std::process::id()));
    let out = out.to_str().unwrap();
    let every = check(&mut v, "fuzz.schema.json", &["fuzz", "--max-programs", "5", "--seed", "1", "--rules", "--json", "--out", out]);
    assert!(every["per_oracle"].as_array().is_some_and(|os| os.iter().all(|o| o["rules"].is_object())), "--rules recorded nothing: {every}");
    let hunt = check(
        &mut v,
        "fuzz.schema.json",
        &["fuzz", "bigfoot-precise", "--mutant", "bf-release-keeps-accesses", "--max-programs", "30", "--seed", "1", "--shrink", "--rules", "--json", "--out", out],
    );
    assert!(hunt["signatures"].as_array().is_some_and(|s| s.iter().any(|g| g["shrunk"].is_string())), "the hunt found and shrank nothing: {hunt}");
    // A shard of the hunt beside it, and the two merged (its summary file has the --json shape).
    check(
        &mut v,
        "fuzz.schema.json",
        &["fuzz", "bigfoot-precise", "--mutant", "bf-release-keeps-accesses", "--max-programs", "30", "--seed", "1", "--shard", "1/2", "--rules", "--json", "--out", out],
    );
    let merged_file = format!("{out}/merged.json");
    let merged = check(&mut v, "merge.schema.json", &["merge", out, "--json", "--out", &merged_file]);
    assert!(merged["signatures"].as_array().is_some_and(|s| !s.is_empty()), "the merge found no failure: {merged}");
    // The hunt (30 programs) and its shard (15) both recorded rules: their coverage adds up.
    assert_eq!(merged["per_oracle"][0]["rules"]["programs"], 45, "{merged}");
    let _ = std::fs::remove_dir_all(out);
    // Scorecards: a detector, a placer with its detector, and a mutant with mistakes to show.
    check(&mut v, "score.schema.json", &["score", "--programs", "20", "--json"]);
    check(&mut v, "score.schema.json", &["score", "--sut", "per-access", "--programs", "20", "--json"]);
    let card = check(&mut v, "score.schema.json", &["score", "--mutant", "ft-join-no-join", "--programs", "60", "--json"]);
    assert!(card["false_positive"].is_object() || card["false_negative"].is_object(), "the mutant's scorecard shows no mistake: {card}");
    // A board: FastTrack beside the lockset detector of examples/detectors, with deviations.
    let lockset = format!("python3 {}/examples/detectors/lockset.py {{}}", env!("CARGO_MANIFEST_DIR"));
    let board = check(&mut v, "board.schema.json", &["score", "--sut", "fasttrack", "--detector-cmd", &lockset, "--programs", "6", "--classes", "--json"]);
    assert!(board["entries"][1]["deviations"].as_array().is_some_and(|d| !d.is_empty()), "no deviation on the board: {board}");
    // Each analysis on the paper programs of its dialect.
    let analyses = [
        ("racerdx", &["racerdx", "racerd"][..]),
        ("bfj", &["bigfoot", "per-access"]),
        ("simplejava", &["escape"]),
        ("capjava", &["capsule"]),
        ("naikaiken", &["naikaiken"]),
        ("ldrf", &["ldrf"]),
    ];
    for f in race_files("corpus/paper") {
        let dialect = race_oracles::lang::parse(&std::fs::read_to_string(&f).unwrap()).unwrap().dialect.to_string();
        for (_, names) in analyses.iter().filter(|(d, _)| *d == dialect) {
            for analysis in *names {
                check(&mut v, "analyze.schema.json", &["analyze", analysis, f.to_str().unwrap(), "--json"]);
            }
        }
    }
    // Traces (one per class) of every program STD is written for, and `races` on the first
    // of each, read back from its STD lines (with and without the name table).
    let scratch = std::env::temp_dir().join(format!("racefuzz-json-std-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for f in race_files("corpus").into_iter().chain(race_files("tests/regress")) {
        // STD has no atomics: `trace` refuses programs with them (docs/spec/atomics.md).
        let parsed = race_oracles::lang::parse(&std::fs::read_to_string(&f).unwrap());
        if !parsed.is_ok_and(|p| racefuzz::cli::shared::DIALECTS.contains(&p.dialect) && !p.has_atomics()) {
            continue;
        }
        let doc = check(&mut v, "trace.schema.json", &["trace", f.to_str().unwrap(), "--classes", "--format", "json"]);
        let Some(first) = doc["traces"].get(0) else { continue };
        let std_text: String = first["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| format!("{}|{}({})|{}\n", e["thread"].as_str().unwrap(), e["op"].as_str().unwrap(), e["decor"].as_str().unwrap(), e["loc"]))
            .collect();
        let (trace, names) = (scratch.join("t.std"), scratch.join("names.json"));
        std::fs::write(&trace, std_text).unwrap();
        std::fs::write(&names, doc["names"].to_string()).unwrap();
        let races = check(&mut v, "races.schema.json", &["races", trace.to_str().unwrap(), "--json"]);
        assert_eq!(races["races"], first["races"], "{}: `races` on the STD lines differs from the trace's races", f.display());
        check(&mut v, "races.schema.json", &["races", trace.to_str().unwrap(), "--json", "--names", names.to_str().unwrap()]);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    // Only the regressions that need their mutant's relaxed dialect are refused without it.
    assert!(refused.iter().all(|r| r.contains("tests/regress/") && !r.contains("--mutant")), "refused: {refused:#?}");
    assert!(v.errors.is_empty(), "{} schema violation(s):\n{}", v.errors.len(), v.errors.join("\n"));
    // Floors: what was compared, so that an empty corpus or a schema nobody exercises fails.
    assert!(corpus.len() >= 50, "{} corpus programs", corpus.len());
    for (name, floor) in [
        ("explore.schema.json", 30),
        ("replay.schema.json", 10),
        ("check.schema.json", 60),
        ("mutants.schema.json", 1),
        ("analyze.schema.json", 60),
        ("fuzz.schema.json", 2),
        ("trace.schema.json", 30),
        ("races.schema.json", 60),
        ("score.schema.json", 3),
    ] {
        assert!(validated.get(name).copied().unwrap_or(0) >= floor, "{name}: {validated:?}");
    }
    // The witness schema is checked inside the others; an analysis's answers (what racefuzz
    // reads) in a test of their own, which needs Python for the example analysis.
    let unused: Vec<&String> = schemas.keys().filter(|s| !["witness.schema.json", "analysis.schema.json"].contains(&s.as_str()) && !validated.contains_key(s.as_str())).collect();
    assert!(unused.is_empty(), "schemas no output is checked against: {unused:?}");
    assert!(failing_items_with_witness >= 10, "failing items that carry a witness: {failing_items_with_witness}");
    assert!(final_states >= 30, "runs with final states: {final_states}");
}

/// The answers of an external static analysis match `analysis.schema.json` (what racefuzz
/// reads, not prints).
#[test]
fn an_external_analysis_answers_as_its_schema_says() {
    needs!(Python3);
    let schemas = schemas();
    let mut v = Validator { schemas: &schemas, errors: vec![] };
    let corpus = race_files("corpus");
    // The naive example's answers on every racerdx program of the corpus, as `--analysis-cmd`
    // gives it (printed canonically), and the book's example with a site through a call.
    let scratch = std::env::temp_dir().join(format!("racefuzz-json-analysis-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut answers = vec![serde_json::json!({"version": 1, "reports": [{"sides": [
        {"method": "qwop", "kind": "w", "path": "arg1.x.g.f", "level": 0, "sites": [[3, 15]]},
        {"method": "gwap", "kind": "r", "path": "arg1.x.g.f", "level": 1, "lines": [7]}]}]})];
    for f in corpus.iter().filter(|f| f.to_string_lossy().contains("/racerdx/")) {
        let Ok(p) = race_oracles::lang::parse(&std::fs::read_to_string(f).unwrap()) else { continue };
        let file = scratch.join("p.race");
        std::fs::write(&file, race_oracles::lang::print(&p)).unwrap();
        let out = std::process::Command::new("python3").arg("examples/analyzers/naive.py").arg(&file).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
        assert!(out.status.success(), "naive.py on {}: {}", f.display(), String::from_utf8_lossy(&out.stderr));
        answers.push(serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("naive.py on {}: not JSON: {e}", f.display())));
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let reports: usize = answers.iter().map(|a| a["reports"].as_array().map_or(0, Vec::len)).sum();
    assert!(reports >= 10, "{reports} reports in {} answers", answers.len());
    for a in &answers {
        v.check("analysis.schema.json", &schemas["analysis.schema.json"], a, "$");
    }
    assert!(answers.len() >= 8, "only {} answers checked", answers.len());
    assert!(v.errors.is_empty(), "{} schema violation(s):\n{}", v.errors.len(), v.errors.join("\n"));
}

#[test]
fn the_validator_rejects_what_the_schemas_forbid() {
    let schemas = schemas();
    let mut v = Validator { schemas: &schemas, errors: vec![] };
    let good = json_of(&["check", "fasttrack-precise", "tests/regress/ft_same_thread_skip.race", "--mutant", "ft-same-thread-skip", "--json"]);
    v.check("check.schema.json", &schemas["check.schema.json"], &good, "$");
    assert!(v.errors.is_empty(), "{:?}", v.errors);
    type Mutation = (&'static str, fn(&mut Value));
    let mutations: [Mutation; 5] = [
        ("an unknown key", |d| d["surprise"] = Value::Bool(true)),
        ("a missing key", |d| {
            d.as_object_mut().unwrap().remove("verdict");
        }),
        ("a verdict outside the enum", |d| d["verdict"] = "ok".into()),
        ("a witness event of the wrong type", |d| d["items"][0]["witness"]["events"][0]["line"] = "three".into()),
        ("a schedule choice of neither shape", |d| d["items"][0]["witness"]["choices"][0] = serde_json::json!({ "thread": 1 })),
    ];
    for (what, mutate) in mutations {
        let mut bad = good.clone();
        mutate(&mut bad);
        let mut v = Validator { schemas: &schemas, errors: vec![] };
        v.check("check.schema.json", &schemas["check.schema.json"], &bad, "$");
        assert!(!v.errors.is_empty(), "{what} passed validation");
    }
}

/// A campaign's summary read as the type `fuzz` writes it with and `merge` reads it with
/// (`racefuzz::summary::Summary`): the type writes back exactly the document it read
/// (serialize → deserialize → serialize, the same bytes), what it writes matches the schema,
/// and the file in the output folder is the document printed. The same for the merge of
/// that campaign with a shard of it. The campaign finds, shrinks and records rules, so that
/// every key has a value.
#[test]
fn a_campaign_summary_reads_back_as_its_type_and_matches_its_schema() {
    use racefuzz::summary::Summary;
    let schemas = schemas();
    let out = std::env::temp_dir().join(format!("racefuzz-json-summary-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let dir = out.to_str().unwrap();
    let typed = |schema: &str, args: &[&str]| -> (Summary, String) {
        let (code, text, err) = super::cli::racefuzz(args);
        assert!(code <= 1, "racefuzz {}: exit {code}: {err}", args.join(" "));
        let summary: Summary = serde_json::from_str(&text).unwrap_or_else(|e| panic!("racefuzz {}: not a summary ({e}): {text}", args.join(" ")));
        let again = format!("{}\n", serde_json::to_string_pretty(&summary).unwrap());
        assert_eq!(again, text, "racefuzz {}: the summary does not write back as it was read", args.join(" "));
        assert_eq!(serde_json::from_str::<Summary>(&again).unwrap(), summary);
        let mut v = Validator { schemas: &schemas, errors: vec![] };
        v.check(schema, &schemas[schema], &serde_json::to_value(&summary).unwrap(), "$");
        assert!(v.errors.is_empty(), "racefuzz {}: {:?}", args.join(" "), v.errors);
        (summary, text)
    };
    let hunt = ["fuzz", "bigfoot-precise", "--mutant", "bf-release-keeps-accesses", "--max-programs", "30", "--seed", "1", "--rules", "--json", "--out", dir];
    let (run, text) = typed("fuzz.schema.json", &[&hunt[..], &["--shrink"]].concat());
    let Summary::Run(r) = &run else { panic!("a campaign's summary reads as a merge's: {text}") };
    assert!(r.signatures.iter().any(|g| g.shrunk.is_some()) && r.per_oracle.iter().all(|o| o.rules.is_some() && o.features.is_some()), "{text}");
    assert_eq!(std::fs::read_to_string(out.join("summary.json")).unwrap(), text, "the summary file is not the summary printed");
    let (shard, text) = typed("fuzz.schema.json", &[&hunt[..], &["--shard", "1/2"]].concat());
    assert!(matches!(&shard, Summary::Run(r) if r.shard.is_some_and(|s| (s.index, s.count) == (1, 2))), "{text}");
    assert_eq!(std::fs::read_to_string(out.join("summary-shard-1-of-2.json")).unwrap(), text);
    let merged_file = out.join("merged.json");
    let (merged, text) = typed("merge.schema.json", &["merge", dir, "--json", "--out", merged_file.to_str().unwrap()]);
    let Summary::Merged(m) = &merged else { panic!("a merge's summary reads as a campaign's: {text}") };
    assert_eq!((m.summaries.len(), m.per_oracle[0].checked), (2, 45), "{text}");
    assert_eq!(std::fs::read_to_string(&merged_file).unwrap(), text, "the merged file is not the summary printed");
    let _ = std::fs::remove_dir_all(&out);
}
