"""Expiring puts: a time in milliseconds since the Unix epoch, by the database's clock."""

import pytest

import twaindb


def test_a_put_expires_at_its_time_and_a_plain_put_never_does(db):
    now = db.now_millis()
    db.put(b"soon", b"1", expires_at=now + 3_600_000)
    db.put(b"past", b"2", expires_at=now - 1)
    db.put(b"plain", b"3")
    assert db.expiry(b"soon") == now + 3_600_000
    assert db.expiry(b"plain") is None
    assert db.get(b"past") is None and b"past" not in db
    with pytest.raises(KeyError):
        db.expiry(b"past")
    with pytest.raises(KeyError):
        db.expiry(b"absent")
    db.put(b"soon", b"4")
    assert db.expiry(b"soon") is None


def test_a_batch_put_may_expire_and_the_time_survives_a_reopen(tmp_path):
    path = tmp_path / "db"
    with twaindb.Db(path) as db:
        later = db.now_millis() + 86_400_000
        batch = twaindb.WriteBatch()
        batch.put(b"a", b"x" * 1000, expires_at=later)
        batch.put(b"b", b"y", expires_at=0)
        batch.put(b"c", b"z")
        db.write(batch)
        db.flush()
    with twaindb.Db(path) as db:
        assert db.expiry(b"a") == later
        assert db[b"a"] == b"x" * 1000
        assert b"b" not in db
        assert list(db.keys()) == [b"a", b"c"]


def test_expiry_times_must_be_non_negative_integers(db):
    with pytest.raises((OverflowError, TypeError)):
        db.put(b"k", b"v", expires_at=-1)
    with pytest.raises(TypeError):
        db.put(b"k", b"v", expires_at="soon")
