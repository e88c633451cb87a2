"""versa → linalg on tensors: `convert-versa-to-linalg`, one lowering per op family in
`lowering/`."""
