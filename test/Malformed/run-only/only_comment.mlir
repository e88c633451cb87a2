// nothing to run
