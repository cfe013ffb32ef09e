use std::time::Instant;
use twain::{Db, Options};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let vlen: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1024);
    let dir = tempfile::tempdir_in("/work").unwrap();
    let db = Db::open(dir.path(), Options::default()).unwrap();
    let mut buf = vec![0u8; 1 << 20];
    let mut x: u64 = 88172645463325252;
    for b in buf.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let key = |i: u64| {
        let p = i.wrapping_mul(0x9E3779B97F4A7C15) % n;
        let mut k = [0u8; 16];
        k[..8].copy_from_slice(&p.to_be_bytes());
        k
    };
    let t = Instant::now();
    for i in 0..n {
        let off = (i as usize * 7919) % (buf.len() - vlen);
        db.put(key(i), &buf[off..off + vlen]).unwrap();
    }
    let e = t.elapsed().as_secs_f64();
    println!("fillrandom {n} x {vlen}: {:.0} ops/s", n as f64 / e);
    let t = Instant::now();
    let r: u64 = std::env::var("READS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    for i in 0..r {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let k = key(x % n);
        assert!(db.get(k).unwrap().is_some(), "{i}");
    }
    println!(
        "readrandom: {:.0} ops/s",
        r as f64 / t.elapsed().as_secs_f64()
    );
    let s = db.stats().unwrap();
    println!("{}", s.to_text());
}
