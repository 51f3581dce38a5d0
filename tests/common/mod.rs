pub mod helm_oracle;
