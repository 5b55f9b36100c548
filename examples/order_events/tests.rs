//! The example runs on the test server and shows what it says.

use super::*;

#[tokio::test]
async fn the_example_runs_and_handles_every_change() {
    let mut log = Vec::new();
    let result = steps::run(&mut log).await;
    let text = log.join("\n");
    assert!(result.is_ok(), "{result:?}\n{text}");
    let expect = |line: &str| assert!(text.contains(line), "missing {line:?} in\n{text}");
    expect("Query ByRegion: #k0 = :k0 AND #k1 = :k1 AND #k2 BETWEEN :k2 AND :k3");
    expect("acme in eu-west, placed 10:00 to 11:00: O1, O2, O3\n");
    expect("The stream holds 7 records:");
    expect("   O1 placed in eu-west (1200 cents): send the confirmation");
    expect("   O2 went from pending to shipped: notify the customer");
    expect("   O3 cancelled by a user");
    expect("handled 7, failed 0");
    expect("O9 expired (TTL): archive it");
    expect(
        "   stopped at record 101: stream record \"2\", new image: item (pk=\"TENANT#acme\", \
         sk=\"INVOICE#I1\"): discriminator `entityType` is \"Invoice\", which no registered \
         mapper reads",
    );
    expect(r#"response: {"batchItemFailures":[{"itemIdentifier":"101"}]}"#);
    // The third record of the event comes again with the retry: not handled.
    assert!(!text.contains("O10"), "{text}");
}
