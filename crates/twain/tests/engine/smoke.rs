use twain::{Db, Options, WriteBatch, WriteOptions};

#[test]
fn put_get_reopen_iterate() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options::default()
        .memtable_size(64 << 10)
        .value_file_size(256 << 10);
    {
        let db = Db::open(dir.path(), opts.clone()).unwrap();
        for i in 0..3000u32 {
            let v = vec![(i % 251) as u8; if i % 3 == 0 { 10 } else { 400 }];
            db.put(format!("key{i:05}"), v).unwrap();
        }
        db.delete("key00007").unwrap();
        let mut b = WriteBatch::new();
        b.put("a", "1").put("b", "2");
        db.write(b, &WriteOptions::synced()).unwrap();
        assert_eq!(db.get("a").unwrap().unwrap(), b"1");
        assert_eq!(db.get("key00009").unwrap().unwrap().len(), 10);
        assert_eq!(db.get("key00010").unwrap().unwrap().len(), 400);
        assert_eq!(db.get("key00007").unwrap(), None);
        db.flush().unwrap();
        println!("{}", db.stats().unwrap().to_text());
    }
    let db = Db::open(dir.path(), opts).unwrap();
    assert_eq!(db.get("key00010").unwrap().unwrap().len(), 400);
    assert_eq!(db.get("key00007").unwrap(), None);
    let n = db.iter().count();
    assert_eq!(n, 3000 - 1 + 2);
    let first: Vec<_> = db
        .range("key00005".."key00009")
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(
        first,
        vec![
            b"key00005".to_vec(),
            b"key00006".to_vec(),
            b"key00008".to_vec()
        ]
    );
    let last: Vec<_> = db
        .range("key00005".."key00009")
        .rev()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(
        last,
        vec![
            b"key00008".to_vec(),
            b"key00006".to_vec(),
            b"key00005".to_vec()
        ]
    );
    db.compact_range(None, None).unwrap();
    assert_eq!(db.iter().count(), 3001);
    assert_eq!(db.prefix("key0001").count(), 10);
    println!("{}", db.stats().unwrap().to_text());
}
