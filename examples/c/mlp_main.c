/* The README's MLP (examples/mlp.mlir), compiled ahead of time by versa-translate into
 * libmlp.so + mlp.h, called from C. Reads seeded inputs and the NumPy reference output that
 * make_reference.py wrote at build time, runs the model, and checks that every softmax row sums
 * to 1 and that the output matches the reference (rtol 1e-4, atol 1e-5, like versa-run --check).
 *
 *   mlp_example mlp_inputs.bin mlp_expected.bin
 */
#include <math.h>
#include <stdio.h>

#include "mlp.h"

static float x[MLP_ARG0_SIZE], w1[MLP_ARG1_SIZE], b1[MLP_ARG2_SIZE], s[MLP_ARG3_SIZE];
static float w2[MLP_ARG4_SIZE], b2[MLP_ARG5_SIZE], y[MLP_RESULT0_SIZE], expected[MLP_RESULT0_SIZE];

static int read_all(FILE *f, float *data, size_t count) { return fread(data, sizeof(float), count, f) == count; }

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s INPUTS.bin EXPECTED.bin\n", argv[0]);
    return 2;
  }
  FILE *in = fopen(argv[1], "rb"), *ref = fopen(argv[2], "rb");
  if (!in || !ref || !read_all(in, x, MLP_ARG0_SIZE) || !read_all(in, w1, MLP_ARG1_SIZE) ||
      !read_all(in, b1, MLP_ARG2_SIZE) || !read_all(in, s, MLP_ARG3_SIZE) || !read_all(in, w2, MLP_ARG4_SIZE) ||
      !read_all(in, b2, MLP_ARG5_SIZE) || !read_all(ref, expected, MLP_RESULT0_SIZE)) {
    fprintf(stderr, "mlp_example: cannot read '%s' or '%s'\n", argv[1], argv[2]);
    return 1;
  }
  fclose(in);
  fclose(ref);

  mlp_run(x, w1, b1, s, w2, b2, y);

  const long long shape[] = MLP_RESULT0_SHAPE;
  double worst_row = 0, worst = 0;
  int mismatches = 0;
  for (long long r = 0; r < shape[0]; r++) {
    double sum = 0;
    for (long long c = 0; c < shape[1]; c++) {
      float got = y[r * shape[1] + c], want = expected[r * shape[1] + c];
      double error = fabs((double)got - want);
      sum += got;
      worst = error > worst ? error : worst;
      mismatches += !(error <= 1e-5 + 1e-4 * fabs(want));
    }
    worst_row = fabs(sum - 1.0) > worst_row ? fabs(sum - 1.0) : worst_row;
  }
  printf("mlp: %lld softmax rows sum to 1 within %.2g; vs the NumPy reference: max abs error %.2g, %d mismatches\n",
         shape[0], worst_row, worst, mismatches);
  if (worst_row > 1e-5 || mismatches) {
    printf("mlp: FAILED\n");
    return 1;
  }
  printf("mlp: OK\n");
  return 0;
}
