//! [`Session`]: the state of one connection that commands read and change — its protocol
//! version, whether it has authenticated, its name, its SCAN cursors — and whether it is
//! to be closed.
//! Owned by one connection at a time; not shared.

use crate::cursor::Cursors;
use crate::resp::Protocol;

/// One connection's state.
#[derive(Debug, Clone)]
pub struct Session {
    /// The connection's id (`CLIENT ID`), unique in this process.
    pub id: u64,
    /// The protocol replies are written in (`HELLO` changes it).
    pub protocol: Protocol,
    /// Whether commands other than `AUTH`, `HELLO` and `QUIT` may run.
    pub authenticated: bool,
    /// The name set by `CLIENT SETNAME` or `HELLO ... SETNAME`.
    pub name: Option<Vec<u8>>,
    /// The connection's SCAN cursors.
    pub cursors: Cursors,
    /// Set by `QUIT`: the connection closes after the replies so far are written.
    pub closing: bool,
}

impl Session {
    /// A new connection: RESP2, authenticated only when no password is required.
    pub fn new(id: u64, password_required: bool) -> Session {
        Session {
            id,
            protocol: Protocol::Resp2,
            authenticated: !password_required,
            name: None,
            cursors: Cursors::new(),
            closing: false,
        }
    }
}
