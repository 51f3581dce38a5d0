pub mod helm_oracle;
#[path = "../../src/test_data.rs"]
pub mod test_data;
