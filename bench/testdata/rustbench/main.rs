// The benchmarks' smallest Rust-built wasm plugin: it reads init and writes
// one output, as `fledge sb` does natively (rustc --target wasm32-wasi).

#[link(wasm_import_module = "fledge")]
extern "C" {
    fn recv(ptr: *mut u8, max_len: i32) -> i32;
    fn send(ptr: *const u8, len: i32);
}

fn main() {
    let mut buf = vec![0u8; 65536];
    unsafe { recv(buf.as_mut_ptr(), buf.len() as i32) };
    let msg = r#"{"type":"output","text":"ok\n"}"#;
    unsafe { send(msg.as_ptr(), msg.len() as i32) };
}
