// SPDX-License-Identifier: GPL-2.0-only
//! The parser and the file rules on text; tests/modern/test_module_functions.py
//! checks the same cases against perf's own `perf config`.

use super::*;

/// (`key=value` lines as `perf config -l` prints them, whether the file was
/// read to its end).
fn read(text: &[u8]) -> (Vec<String>, bool) {
    let mut set = ConfigSet::default();
    let ok = set.read(text).is_ok();
    let lines = set
        .entries()
        .map(|(k, v)| {
            format!(
                "{}={}",
                String::from_utf8_lossy(&k),
                String::from_utf8_lossy(v)
            )
        })
        .collect();
    (lines, ok)
}

fn ok(text: &str, expected: &[&str]) {
    assert_eq!(
        read(text.as_bytes()),
        (expected.iter().map(|s| s.to_string()).collect(), true),
        "{text:?}"
    );
}

fn bad(text: &str, kept: &[&str]) {
    assert_eq!(
        read(text.as_bytes()),
        (kept.iter().map(|s| s.to_string()).collect(), false),
        "{text:?}"
    );
}

#[test]
fn sections_and_keys() {
    ok(
        "[core]\n\tproc-map-timeout = 100\n",
        &["core.proc-map-timeout=100"],
    );
    ok(
        "[report]\nchildren=false\n[top]\nchildren = true\n",
        &["report.children=false", "top.children=true"],
    );
    ok("[CoRe]\nFooBar = x\n", &["core.fooBar=x"]);
    ok("[a.B]\nk = 1\n", &["a.b.k=1"]);
    ok(
        "[section \"Sub.Name\"]\nkey = v\n",
        &["section.Sub.Name.key=v"],
    );
    ok("[s \"a\\\"b\\\\c\"]\nk = v\n", &["s.a\"b\\c.k=v"]);
    ok("[s]k = v\n", &["s.k=v"]);
    ok(
        "[s]\nk = 1\n[t]\nk = 2\n[s]\nk = 3\nj = 4\n",
        &["s.k=3", "s.j=4", "t.k=2"],
    );
    ok("", &[]);
    ok("\n\n   \n", &[]);
    ok("[s]\nk = v", &["s.k=v"]);
    ok("[s]\nk =\n", &["s.k="]);
}

#[test]
fn values() {
    ok("[s]\nk =   a   b\t c  \n", &["s.k=a b c"]);
    ok(
        "[s]\nk = \"  a # b ; c  \"  # comment\n",
        &["s.k=  a # b ; c  "],
    );
    ok("[s]\nk = a ; comment\n", &["s.k=a"]);
    ok(
        "[s]\nk = a\\tb\\nc\\\\d\\\"e\\bf\n",
        &["s.k=a\tb\nc\\d\"e\u{8}f"],
    );
    ok("[s]\nk = a\\\n  b\n", &["s.k=a b"]);
    ok("[s]\nk = a\"b c\"d\n", &["s.k=ab cd"]);
    ok("[s]\nk = v\r\nj = w\r\n", &["s.k=v", "s.j=w"]);
    ok("\u{feff}[s]\nk = v\n", &["s.k=v"]);
    // 0xA0 is a blank to the kernel's ctype: "voilà x" loses its à's
    // second byte and keeps one space.
    assert_eq!(
        read(b"[s]\nk = voil\xc3\xa0 x\n"),
        (vec!["s.k=voil\u{fffd} x".to_owned()], true)
    );
}

#[test]
fn comments() {
    ok("# c\n; c\n[s] # c\nk = v # c\n  ; c\n", &["s.k=v"]);
    ok("[s]\n#k = v\n", &[]);
}

#[test]
fn value_length() {
    let fits = format!("[s]\nk = {}\n", "x".repeat(1022));
    assert!(read(fits.as_bytes()).1);
    bad(&format!("[s]\nk = {}\n", "x".repeat(1023)), &[]);
}

#[test]
fn bad_lines_end_the_file() {
    bad("[s]\na = 1\nnovalue\nb = 2\n", &["s.a=1"]);
    bad("k = v\n", &[]);
    bad("[s]\nk = \"open\n", &[]);
    bad("[s]\nk = a\\qb\n", &[]);
    bad("[]\nk = v\n", &[]);
    bad("[s\nk = v\n", &[]);
    bad("[s t]\nk = v\n", &[]);
    bad("[s \"t\" ]\nk = v\n", &[]);
    bad("[s]\n1k = v\n", &[]);
    bad("[s]\nk v\n", &[]);
    bad("[s]\nk.j = v\n", &[]);
    bad("[s/t]\n", &[]);
    bad("\u{feff}\u{feff}[s]\n", &[]);
    bad("[s]\nk = 1\n\x00", &["s.k=1"]);
    assert!(!read(b"\xef\xbb[s]\n").1);
}

#[test]
fn name_lengths() {
    // Section names up to 129 bytes, section.key up to 255.
    let section = "s".repeat(129);
    assert!(read(format!("[{section}]\nk = v\n").as_bytes()).1);
    assert!(!read(format!("[{}]\nk = v\n", "s".repeat(130)).as_bytes()).1);
    let key = "k".repeat(255 - 130);
    assert!(read(format!("[{section}]\n{key} = v\n").as_bytes()).1);
    assert!(!read(format!("[{section}]\n{key}k = v\n").as_bytes()).1);
}

#[test]
fn get_takes_exact_keys() {
    let mut set = ConfigSet::default();
    set.read(&b"[Core]\nKey = 1\n[s \"T\"]\nk = 2\n"[..])
        .unwrap();
    assert_eq!(set.get(b"core.key"), Some(&b"1"[..]));
    assert_eq!(set.get(b"core.Key"), None);
    assert_eq!(set.get(b"Core.key"), None);
    assert_eq!(set.get(b"s.T.k"), Some(&b"2"[..]));
    assert_eq!(set.get(b"s.t.k"), None);
    assert_eq!(set.get(b"core"), None);
    assert_eq!(set.get(b""), None);
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn precedence_between_files() {
    let dir = std::env::temp_dir().join(format!("perf-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let system = write(&dir, "system", "[a]\nx = sys\ny = sys\n");
    let user = write(&dir, "user", "[a]\nx = user\n[b]\nz = user\n");
    let bad_system = write(&dir, "bad", "[a]\ny = sys\nbroken\n");
    let both = Sources {
        exclusive: None,
        system: Some(system.clone()),
        user: Some(user.clone()),
    };
    let set = ConfigSet::load(&both);
    assert_eq!(set.get(b"a.x"), Some(&b"user"[..]));
    assert_eq!(set.get(b"a.y"), Some(&b"sys"[..]));
    assert_eq!(set.get(b"b.z"), Some(&b"user"[..]));
    // A bad system file keeps what it had and skips the user's.
    let set = ConfigSet::load(&Sources {
        system: Some(bad_system),
        ..both.clone()
    });
    assert_eq!(set.get(b"a.y"), Some(&b"sys"[..]));
    assert_eq!(set.get(b"a.x"), None);
    // $PERF_CONFIG alone; a missing file is an empty set.
    let set = ConfigSet::load(&Sources {
        exclusive: Some(user.clone()),
        ..both.clone()
    });
    assert_eq!(set.get(b"a.y"), None);
    assert_eq!(set.get(b"a.x"), Some(&b"user"[..]));
    let set = ConfigSet::load(&Sources {
        exclusive: Some(dir.join("missing")),
        ..both
    });
    assert_eq!(set, ConfigSet::default());
    // A directory reads as empty, as fopen+fgetc see it.
    let mut set = ConfigSet::default();
    assert_eq!(set.read_file(&dir), Ok(()));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn booleans() {
    for t in [
        "1",
        "true",
        "YES",
        "On",
        "2",
        "-1",
        "0x10",
        "1k",
        "junk",
        "1 ",
        "0 ",
        "99999999999999999999",
        "08",
    ] {
        assert!(config_bool(t.as_bytes()), "{t:?}");
    }
    for f in [
        "",
        "0",
        "false",
        "No",
        "OFF",
        "0x0",
        "00",
        " 0",
        "0k",
        "4294967296",
        "4g",
        "-0",
    ] {
        assert!(!config_bool(f.as_bytes()), "{f:?}");
    }
}

#[test]
fn strtol_like_c() {
    assert_eq!(strtol(b"  42rest"), (42, &b"rest"[..]));
    assert_eq!(strtol(b"-0x1F"), (-31, &b""[..]));
    assert_eq!(strtol(b"0x"), (0, &b"x"[..]));
    assert_eq!(strtol(b"017"), (15, &b""[..]));
    assert_eq!(strtol(b"x"), (0, &b"x"[..]));
    assert_eq!(strtol(b" -"), (0, &b" -"[..]));
    assert_eq!(strtol(b"-9223372036854775809"), (i64::MIN, &b""[..]));
}

#[test]
fn many_sections_and_keys_are_read_and_found() {
    // 80 000 sections of two keys, then every section again with a new
    // value for its first key: the order stays that of first appearance.
    let n = 80_000;
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!("[s{i}]\na = {i}\nb = x\n"));
    }
    for i in 0..n {
        text.push_str(&format!("[s{i}]\na = {}\n", i + 1));
    }
    let mut set = ConfigSet::default();
    set.read(text.as_bytes()).unwrap();
    assert_eq!(set.entries().count(), 2 * n);
    for i in [0, 1, n / 2, n - 1] {
        assert_eq!(
            set.get(format!("s{i}.a").as_bytes()),
            Some(format!("{}", i + 1).as_bytes())
        );
        assert_eq!(set.get(format!("s{i}.b").as_bytes()), Some(&b"x"[..]));
    }
    assert_eq!(set.get(b"s0.c"), None);
    assert_eq!(set.get(b"nosection.a"), None);
    assert_eq!(set.get(b"nodot"), None);
    let first: Vec<Vec<u8>> = set.entries().take(3).map(|(k, _)| k).collect();
    assert_eq!(
        first,
        [b"s0.a".to_vec(), b"s0.b".to_vec(), b"s1.a".to_vec()]
    );
}

#[test]
fn subsection_keys_are_found_by_their_first_dot() {
    let mut set = ConfigSet::default();
    set.read(&b"[a.b]\nk = 1\n[a \"X.Y\"]\nk = 2\n[a.b]\nk = 3\n"[..])
        .unwrap();
    // `a.b.k` is section `a`, key `b.k`, set by the first and third
    // sections.
    assert_eq!(set.get(b"a.b.k"), Some(&b"3"[..]));
    assert_eq!(set.get(b"a.X.Y.k"), Some(&b"2"[..]));
}

#[test]
fn only_regular_files_are_read() {
    // perf reads a bad first line in the first two, and waits on a FIFO.
    for p in ["/dev/zero", "/dev/urandom", "/nonexistent/perfconfig"] {
        let mut set = ConfigSet::default();
        assert_eq!(set.read_file(Path::new(p)), Err(BadLine), "{p}");
        assert_eq!(set.entries().count(), 0);
    }
}
