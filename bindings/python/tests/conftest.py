"""Shared fixtures: a fresh database directory, and a database open in it."""

import pytest

import twaindb


@pytest.fixture
def path(tmp_path):
    """A directory path where no database exists yet."""
    return tmp_path / "db"


@pytest.fixture
def db(path):
    """An open database with small memtables, so tests reach table files quickly."""
    with twaindb.Db(path, memtable_size="64K") as db:
        yield db


def items(it):
    """The (key, value) pairs of an iterator, as a list."""
    return list(it)


def keys(it):
    """The keys of an iterator, as a list."""
    return [k for k, _ in it]
