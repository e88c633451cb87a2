// a module without functions
module {
}
