// words, not IR
hello world
