package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.ChildJvm;
import dev.sharray.DType;
import dev.sharray.Descriptor;
import dev.sharray.SharedArray;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** In-place coding of a (k + m, shardLength) UINT8 SharedArray, in this JVM and in a worker JVM. */
class SharedArrayStripeTest {

    @ParameterizedTest
    @EnumSource(Matrix.class)
    void encodeVerifyReconstructAndUpdateInPlace(Matrix matrix) {
        Random rnd = new Random(17);
        int k = 10;
        int m = 4;
        int n = k + m;
        for (int len : new int[] {1, 100, 65_537, 200_003}) { // update stages 64 KiB chunks: several, with a tail
            byte[][] expected = Codecs.randomStripe(rnd, k, m, len);
            ReferenceCodec.encode(matrix, k, m, expected);
            for (ErasureCodec codec : Codecs.all(k, m, matrix)) {
                try (SharedArray stripe = SharedArray.create(DType.UINT8, n, len)) {
                    stripe.copyFrom(flatten(expected, k, n, len));
                    codec.encode(stripe);
                    assertRows(expected, stripe, codec + " encode len " + len);
                    assertTrue(codec.verify(stripe), codec + " verify");

                    boolean[] present = ReconstructTest.randomPresent(rnd, n, m);
                    byte[] wiped = stripe.toByteArray();
                    for (int i = 0; i < n; i++) {
                        if (!present[i]) {
                            Arrays.fill(wiped, i * len, (i + 1) * len, (byte) 0);
                        }
                    }
                    stripe.copyFrom(wiped);
                    assertFalse(codec.verify(stripe), codec + " verify after wiping");
                    codec.reconstruct(stripe, present);
                    assertRows(expected, stripe, codec + " reconstruct len " + len);

                    byte[] newData = new byte[len];
                    rnd.nextBytes(newData);
                    byte[][] updated = Codecs.copy(expected);
                    updated[3] = newData.clone();
                    ReferenceCodec.encode(matrix, k, m, updated);
                    codec.update(stripe, 3, newData);
                    assertRows(updated, stripe, codec + " update len " + len);
                }
            }
        }
    }

    @Test
    void reconstructDataOnAStripeThatIsARowSliceOfABiggerArray() {
        Random rnd = new Random(5);
        ErasureCodec codec = ErasureCodec.create(6, 3);
        int len = 333;
        byte[][] expected = Codecs.randomStripe(rnd, 6, 3, len);
        codec.encode(expected);
        try (SharedArray big = SharedArray.create(DType.UINT8, 20, len);
             SharedArray stripe = big.slice(0, 5, 14, 1)) {
            assertTrue(stripe.isContiguous());
            stripe.copyFrom(flatten(expected, 9, 9, len));
            boolean[] present = {false, true, true, false, true, true, true, true, false};
            byte[] wiped = stripe.toByteArray();
            for (int i : new int[] {0, 3, 8}) {
                Arrays.fill(wiped, i * len, (i + 1) * len, (byte) 7);
            }
            stripe.copyFrom(wiped);
            codec.reconstructData(stripe, present);
            byte[] all = stripe.toByteArray();
            for (int i = 0; i < 8; i++) {
                assertArrayEquals(expected[i], Arrays.copyOfRange(all, i * len, (i + 1) * len), "row " + i);
            }
            byte[] parity8 = Arrays.copyOfRange(all, 8 * len, 9 * len);
            byte[] sevens = new byte[len];
            Arrays.fill(sevens, (byte) 7);
            assertArrayEquals(sevens, parity8, "reconstructData must not write parity");
            byte[] outside = big.toByteArray();
            for (int i = 0; i < 5 * len; i++) {
                assertEquals(0, outside[i], "byte before the view");
            }
        }
    }

    @Test
    void doublesWrittenThroughAFloat64ViewOfTheDataRowsAreCodedAndRebuiltBitForBit() {
        int k = 5;
        int m = 3;
        int n = 1_000; // doubles per shard: 8,000-byte rows
        double[] values = new double[k * n];
        Random rnd = new Random(23);
        for (int i = 0; i < values.length; i++) {
            values[i] = Double.longBitsToDouble(rnd.nextLong()); // every bit pattern: NaN payloads, subnormals, -0.0
        }
        for (ErasureCodec codec : Codecs.all(k, m, Matrix.VANDERMONDE)) {
            try (SharedArray stripe = SharedArray.create(DType.UINT8, k + m, 8L * n);
                 SharedArray dataRows = stripe.slice(0, 0, k, 1);
                 SharedArray data = dataRows.viewAs(DType.FLOAT64)) {
                assertArrayEquals(new long[] {k, n}, data.shape());
                data.copyFrom(values);
                codec.encode(stripe);
                byte[][] expected = new byte[k + m][];
                byte[] all = stripe.toByteArray();
                for (int i = 0; i < k + m; i++) {
                    expected[i] = Arrays.copyOfRange(all, i * 8 * n, (i + 1) * 8 * n);
                }
                byte[][] reference = Codecs.copy(expected);
                ReferenceCodec.encode(Matrix.VANDERMONDE, k, m, reference);
                for (int j = k; j < k + m; j++) {
                    assertArrayEquals(reference[j], expected[j], codec + ": parity row " + j + " of the doubles' bytes");
                }
                for (int lost : new int[] {2, k + 1}) { // a data row and a parity row
                    try (SharedArray row = stripe.select(0, lost)) {
                        row.copyFrom(new byte[8 * n]);
                    }
                }
                assertEquals(0.0, data.getDouble(2, n - 1), "the data row is zero before the rebuild");
                boolean[] present = new boolean[k + m];
                Arrays.fill(present, true);
                present[2] = false;
                present[k + 1] = false;
                codec.reconstruct(stripe, present);
                long[] rebuilt = Arrays.stream(data.toDoubleArray()).mapToLong(Double::doubleToRawLongBits).toArray();
                assertArrayEquals(Arrays.stream(values).mapToLong(Double::doubleToRawLongBits).toArray(), rebuilt,
                    codec + ": the doubles bit for bit");
                assertRows(expected, stripe, codec + " after reconstruct");
            }
        }
    }

    /** The worker side of the test: opens each descriptor it is sent and codes it in place. */
    public static void main(String[] args) throws Exception {
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
        System.out.println("ready " + SharedStripes.codec(10, 4, Matrix.VANDERMONDE).backend());
        for (String line; (line = in.readLine()) != null; ) {
            String[] parts = line.split(" ");
            Descriptor d = Descriptor.fromBytes(Base64.getDecoder().decode(parts[1]));
            if (parts[0].equals("encode")) {
                SharedStripes.encode(d, 10, 4, Matrix.VANDERMONDE);
            } else {
                boolean[] present = new boolean[14];
                for (int i = 0; i < 14; i++) {
                    present[i] = parts[2].charAt(i) == '1';
                }
                SharedStripes.reconstruct(d, 10, 4, Matrix.VANDERMONDE, present);
            }
            System.out.println("done " + parts[0]);
        }
    }

    @Test
    void workerJvmEncodesAndReconstructsAStripeOpenedFromItsDescriptor() throws Exception {
        Random rnd = new Random(99);
        int len = 10_000;
        byte[][] expected = Codecs.randomStripe(rnd, 10, 4, len);
        ReferenceCodec.encode(Matrix.VANDERMONDE, 10, 4, expected);
        try (SharedArray stripe = SharedArray.create(DType.UINT8, 14, len);
             ChildJvm worker = ChildJvm.start(SharedArrayStripeTest.class, List.of())) {
            assertEquals("NATIVE", worker.expect("ready "));
            stripe.copyFrom(flatten(expected, 10, 14, len));
            String descriptor = Base64.getEncoder().encodeToString(stripe.descriptor().toBytes());
            worker.send("encode " + descriptor);
            assertEquals("encode", worker.expect("done "));
            assertRows(expected, stripe, "encoded by the worker");

            byte[] wiped = stripe.toByteArray();
            Arrays.fill(wiped, 2 * len, 3 * len, (byte) 0);
            Arrays.fill(wiped, 11 * len, 13 * len, (byte) 0);
            Arrays.fill(wiped, 6 * len, 7 * len, (byte) 0);
            stripe.copyFrom(wiped);
            worker.send("reconstruct " + descriptor + " 11011101111001");
            assertEquals("reconstruct", worker.expect("done "));
            assertRows(expected, stripe, "reconstructed by the worker");
            assertEquals(0, worker.finish());
        }
    }

    private static byte[] flatten(byte[][] rows, int filled, int n, int len) {
        byte[] all = new byte[n * len];
        for (int i = 0; i < filled; i++) {
            System.arraycopy(rows[i], 0, all, i * len, len);
        }
        return all;
    }

    private static void assertRows(byte[][] expected, SharedArray stripe, String what) {
        byte[] all = stripe.toByteArray();
        int len = expected[0].length;
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], Arrays.copyOfRange(all, i * len, (i + 1) * len), what + " row " + i);
        }
    }
}
