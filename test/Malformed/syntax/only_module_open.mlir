// module never closed
module {
