//! Embedding the Redis-protocol server in a program: bind on a free loopback port, serve
//! on a thread, talk to it as a Redis client would, shut it down (the database is flushed
//! and closed).
//!
//! Run: `cargo run -p twain-server --example embedded_server`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use twain_server::{Config, Server, SyncMode};

/// Sends one command in RESP and reads a one-line reply (or a bulk string).
fn call(conn: &mut BufReader<TcpStream>, words: &[&str]) -> std::io::Result<String> {
    let mut req = format!("*{}\r\n", words.len());
    for w in words {
        req.push_str(&format!("${}\r\n{w}\r\n", w.len()));
    }
    conn.get_mut().write_all(req.as_bytes())?;
    let mut line = String::new();
    conn.read_line(&mut line)?;
    let line = line.trim_end().to_string();
    if let Some(len) = line.strip_prefix('$').and_then(|n| n.parse::<usize>().ok()) {
        let mut body = vec![0; len + 2];
        conn.read_exact(&mut body)?;
        body.truncate(len);
        return Ok(String::from_utf8_lossy(&body).into_owned());
    }
    Ok(line)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let mut config = Config::new(dir.path());
    config.addr = "127.0.0.1:0".to_string(); // port 0: a free one
    config.sync = SyncMode::Always; // acknowledge writes once synced
    let server = Server::bind(config)?;
    let addr = server.local_addr();
    let shutdown = server.shutdown_handle();
    // `false`: this program handles its own signals; the handle stops the server.
    let serving = std::thread::spawn(move || server.run(false));

    let mut conn = BufReader::new(TcpStream::connect(addr)?);
    assert_eq!(call(&mut conn, &["PING"])?, "+PONG");
    assert_eq!(call(&mut conn, &["SET", "greeting", "hello"])?, "+OK");
    assert_eq!(call(&mut conn, &["GET", "greeting"])?, "hello");
    assert_eq!(call(&mut conn, &["INCRBY", "visits", "5"])?, ":5");
    println!("embedded_server: served on {addr}");

    shutdown.shutdown();
    serving.join().map_err(|_| "the server thread panicked")??;
    println!("embedded_server: shut down, database closed");
    Ok(())
}
