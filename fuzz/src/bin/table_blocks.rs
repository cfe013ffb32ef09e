//! AFL++ target: [`twain_fuzz::table_blocks`].
fn main() {
    afl::fuzz!(|data: &[u8]| twain_fuzz::table_blocks(data));
}
