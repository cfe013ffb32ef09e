//! AFL++ target: [`twain_fuzz::compaction_job`].
fn main() {
    afl::fuzz!(|data: &[u8]| twain_fuzz::compaction_job(data));
}
