//! The consistency oracle (#29) on the embedded emulator: fixed seeds,
//! random writes through every helper, the store checked against a model
//! after each step (`dynamodb_mapper_support::consistency`). A failure
//! prints the seed and the steps.

use dynamodb_mapper_support::consistency::{Oracle, PLAIN, Seeded, VERSIONED};
use dynamodb_mapper_support::local;

#[tokio::test]
async fn every_helper_keeps_the_store_as_the_model_says() {
    for seed in 0..8 {
        let client = local::client().await;
        let plain = local::new_table(&client, "oracle-plain", PLAIN).await;
        let versioned = local::new_table(&client, "oracle-versioned", VERSIONED).await;
        let mut oracle = Oracle::new(client, &plain, &versioned).await;
        oracle.note(&format!("seed {seed}"));
        let mut choices = Seeded::new(seed, 60);
        while choices.step() {
            oracle.step(&mut choices).await;
        }
    }
}
