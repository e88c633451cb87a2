/* A generic driver for any model compiled by versa-translate: reads the inputs from one binary
 * file (the buffers back to back, in argument order, C-contiguous), calls the model through its
 * header's packed helper, and writes the outputs to another file the same way. Built per model:
 *
 *   versa-translate model.mlir --emit-shared -o libmodel.so --header model.h
 *   cc -DVERSA_HEADER='"model.h"' -DVERSA_ENTRY=model -DVERSA_PREFIX=MODEL run_model.c \
 *      -L. -lmodel -Wl,-rpath,'$ORIGIN' -o run_model
 *   ./run_model inputs.bin outputs.bin
 */
#include <stdio.h>
#include <stdlib.h>

#include VERSA_HEADER

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define NUM_INPUTS CAT(VERSA_PREFIX, _NUM_INPUTS)
#define NUM_BUFFERS (NUM_INPUTS + CAT(VERSA_PREFIX, _NUM_OUTPUTS))

static int fail(const char *what, const char *path) {
  fprintf(stderr, "run_model: %s '%s'\n", what, path);
  return 1;
}

int main(int argc, char **argv) {
  static const long long bytes[] = CAT(VERSA_PREFIX, _BUFFER_BYTES);
  void *buffers[NUM_BUFFERS + 1];
  if (argc != 3) {
    fprintf(stderr, "usage: %s INPUTS.bin OUTPUTS.bin\n", argv[0]);
    return 2;
  }
  FILE *in = fopen(argv[1], "rb");
  if (!in) return fail("cannot open", argv[1]);
  for (int i = 0; i < NUM_BUFFERS; i++) {
    buffers[i] = malloc(bytes[i] ? (size_t)bytes[i] : 1);
    if (!buffers[i]) return fail("out of memory reading", argv[1]);
    if (i < NUM_INPUTS && fread(buffers[i], 1, (size_t)bytes[i], in) != (size_t)bytes[i])
      return fail("too few bytes in", argv[1]);
  }
  if (fgetc(in) != EOF) return fail("too many bytes in", argv[1]);
  fclose(in);

  CAT(VERSA_ENTRY, _run_packed)(buffers);

  FILE *out = fopen(argv[2], "wb");
  if (!out) return fail("cannot create", argv[2]);
  for (int i = NUM_INPUTS; i < NUM_BUFFERS; i++)
    if (fwrite(buffers[i], 1, (size_t)bytes[i], out) != (size_t)bytes[i]) return fail("cannot write", argv[2]);
  if (fclose(out) != 0) return fail("cannot write", argv[2]);
  for (int i = 0; i < NUM_BUFFERS; i++) free(buffers[i]);
  return 0;
}
