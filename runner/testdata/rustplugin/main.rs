// A wasm plugin written as the published Rust ones are (fledge-plugin-
// test-store, -envcheck, ...): no dependencies, the fledge host functions
// imported directly, built with `rustc --target wasm32-wasi` (Rust 1.63, as
// Debian ships it) or wasm32-wasip1. The runner's tests run it to guard
// compatibility with modules built for the Rust fledge.

#[link(wasm_import_module = "fledge")]
extern "C" {
    fn recv(ptr: *mut u8, max_len: i32) -> i32;
    fn send(ptr: *const u8, len: i32);
    fn exit(code: i32);
    fn exec(ptr: *const u8, len: i32) -> i32;
    fn store_set(ptr: *const u8, len: i32);
    fn store_get(ptr: *const u8, len: i32) -> i32;
    fn metadata(ptr: *const u8, len: i32) -> i32;
}

fn fledge_recv(max: usize) -> String {
    let mut buf = vec![0u8; max];
    let len = unsafe { recv(buf.as_mut_ptr(), buf.len() as i32) };
    buf.truncate(len.max(0) as usize);
    String::from_utf8_lossy(&buf).to_string()
}

fn fledge_send(msg: &str) {
    unsafe { send(msg.as_ptr(), msg.len() as i32) };
}

fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            _ => out.push(ch),
        }
    }
    out
}

fn output(text: &str) {
    fledge_send(&format!(r#"{{"type":"output","text":"{}"}}"#, json_escape(text)));
}

fn call(f: unsafe extern "C" fn(*const u8, i32) -> i32, arg: &str) -> String {
    let len = unsafe { f(arg.as_ptr(), arg.len() as i32) };
    if len <= 0 {
        return format!("({})", len);
    }
    fledge_recv(len as usize)
}

fn main() {
    let init = fledge_recv(65536);
    if init.contains(r#""type":"init""#) {
        output("init: ok\n");
    } else {
        output(&format!("init: bad {}\n", init));
    }

    let set = r#"{"key":"greeting","value":"hello world"}"#;
    unsafe { store_set(set.as_ptr(), set.len() as i32) };
    output(&format!("store_get: {}\n", call(store_get, "greeting")));
    output(&format!("store_get missing: {}\n", call(store_get, "no-such-key")));
    output(&format!("exec: {}\n", call(exec, r#"{"command":"echo rust-exec"}"#)));
    output(&format!("metadata: {}\n", call(metadata, r#"["git_tags"]"#)));

    // Not possible in the Rust fledge, answered here.
    fledge_send(r#"{"type":"prompt","id":"p1","message":"Name?","default":"rusty"}"#);
    output(&format!("prompt: {}\n", fledge_recv(4096)));
    // Nothing more is owed: recv returns 0 at once.
    output(&format!("recv idle: {}\n", fledge_recv(4096).len()));

    println!("println: shown as output");
    match std::fs::read_to_string("/project/data.txt") {
        Ok(s) => output(&format!("fs: {}\n", s.trim())),
        Err(_) => output("fs: blocked\n"),
    }
    match std::fs::write("/project/new.txt", "x") {
        Ok(_) => output("fs write: allowed\n"),
        Err(_) => output("fs write: blocked\n"),
    }
    match std::net::TcpStream::connect("127.0.0.1:9") {
        Ok(_) => output("network: open\n"),
        Err(_) => output("network: blocked\n"),
    }
    match std::process::Command::new("echo").output() {
        Ok(_) => output("spawn: allowed\n"),
        Err(_) => output("spawn: blocked\n"),
    }
    output(&format!("env: {}\n", std::env::vars().count()));
    unsafe { exit(3) };
    unreachable!();
}
