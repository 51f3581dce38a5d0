pub mod helm_oracle;
pub mod kustomize_oracle;
#[path = "../../src/test_data.rs"]
pub mod test_data;
