//! AFL++ target: [`twain_fuzz::svtable`].
fn main() {
    afl::fuzz!(|data: &[u8]| twain_fuzz::svtable(data));
}
