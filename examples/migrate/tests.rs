//! The example runs on the test server (with fewer orders) and shows what
//! it says.

use super::*;

#[tokio::test]
async fn the_example_backfills_the_new_index_and_audits_clean() {
    let mut log = Vec::new();
    let result = steps::run(2_000, &mut log).await;
    let text = log.join("\n");
    assert!(result.is_ok(), "{result:?}\n{text}");
    let expect = |line: &str| assert!(text.contains(line), "missing {line:?} in\n{text}");
    expect("2. Wrote 2000 orders of the old shape in 80 BatchWriteItem requests");
    expect("4. Audit, 4 segments:\n   2000 items scanned, 4000 findings\n   Order");
    expect("missing `gsi1pk`");
    expect("2000 items scanned: 2000 changed, 0 unchanged, 0 skipped, 0 failed");
    expect("6. Audit again:\n   2000 items scanned, nothing found");
    expect("7. Query ByStatus for open orders: 400");
    expect("[####################] 2000/2000 orders, 2000 changed");
}
