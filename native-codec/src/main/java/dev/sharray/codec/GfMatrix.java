package dev.sharray.codec;

/** Small dense matrices over GF(2^8), as {@code int[rows][cols]} with entries 0..255. */
final class GfMatrix {
    private GfMatrix() {
    }

    static int[][] identity(int n) {
        int[][] r = new int[n][n];
        for (int i = 0; i < n; i++) {
            r[i][i] = 1;
        }
        return r;
    }

    static int[][] multiply(int[][] a, int[][] b) {
        int rows = a.length;
        int inner = b.length;
        int cols = b[0].length;
        int[][] r = new int[rows][cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                int v = 0;
                for (int t = 0; t < inner; t++) {
                    v ^= Galois.mul(a[i][t], b[t][j]);
                }
                r[i][j] = v;
            }
        }
        return r;
    }

    static int[][] rows(int[][] a, int[] rowIndexes) {
        int[][] r = new int[rowIndexes.length][];
        for (int i = 0; i < rowIndexes.length; i++) {
            r[i] = a[rowIndexes[i]].clone();
        }
        return r;
    }

    /** Gauss-Jordan inverse; throws {@link ArithmeticException} when singular. */
    static int[][] invert(int[][] a) {
        int n = a.length;
        int[][] w = new int[n][];
        for (int i = 0; i < n; i++) {
            w[i] = a[i].clone();
        }
        int[][] r = identity(n);
        for (int c = 0; c < n; c++) {
            int pivot = c;
            while (pivot < n && w[pivot][c] == 0) {
                pivot++;
            }
            if (pivot == n) {
                throw new ArithmeticException("singular matrix");
            }
            swap(w, c, pivot);
            swap(r, c, pivot);
            int scale = Galois.inv(w[c][c]);
            for (int j = 0; j < n; j++) {
                w[c][j] = Galois.mul(w[c][j], scale);
                r[c][j] = Galois.mul(r[c][j], scale);
            }
            for (int i = 0; i < n; i++) {
                int f = w[i][c];
                if (i != c && f != 0) {
                    for (int j = 0; j < n; j++) {
                        w[i][j] ^= Galois.mul(f, w[c][j]);
                        r[i][j] ^= Galois.mul(f, r[c][j]);
                    }
                }
            }
        }
        return r;
    }

    /**
     * Systematic Vandermonde as Backblaze and klauspost build it: vandermonde(k+m, k) times the inverse
     * of its top k x k square, so the top becomes the identity and any k rows stay invertible.
     */
    static int[][] vandermonde(int k, int m) {
        int n = k + m;
        int[][] v = new int[n][k];
        for (int r = 0; r < n; r++) {
            for (int c = 0; c < k; c++) {
                v[r][c] = Galois.pow(r, c);
            }
        }
        int[][] top = new int[k][];
        System.arraycopy(v, 0, top, 0, k);
        return multiply(v, invert(top));
    }

    /** ISA-L's gf_gen_cauchy1_matrix: identity on top, then 1 / (i ^ j) for parity row i, column j. */
    static int[][] cauchy(int k, int m) {
        int n = k + m;
        int[][] a = new int[n][k];
        for (int i = 0; i < k; i++) {
            a[i][i] = 1;
        }
        for (int i = k; i < n; i++) {
            for (int j = 0; j < k; j++) {
                a[i][j] = Galois.inv(i ^ j);
            }
        }
        return a;
    }

    /** Row-major bytes, the layout every backend's table builder reads. */
    static byte[] flatten(int[][] a) {
        int cols = a.length == 0 ? 0 : a[0].length;
        byte[] r = new byte[a.length * cols];
        for (int i = 0; i < a.length; i++) {
            for (int j = 0; j < cols; j++) {
                r[i * cols + j] = (byte) a[i][j];
            }
        }
        return r;
    }

    private static void swap(int[][] a, int i, int j) {
        int[] t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}
