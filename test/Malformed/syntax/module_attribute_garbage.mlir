// attribute without a value on the module
module attributes {x = } {
}
