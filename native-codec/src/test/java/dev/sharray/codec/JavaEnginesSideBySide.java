package dev.sharray.codec;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/**
 * Not a test: a measurement. RS(10,4) encode with 1 MiB shards on one thread, NATIVE (direct buffers, as
 * {@code CodecSideBySide} in bench), JAVA on the Vector API and JAVA's scalar engine (both on {@code byte[][]})
 * interleaved in short bursts in one JVM, so all three see the same machine load. The scalar engine is built
 * directly: in a JVM with the Vector API module, JAVA selects VectorEngine. Prints best and median GB/s of data
 * and the ratios to the scalar engine. docs/codec.md quotes it.
 *
 * <p>Usage, after a build: {@code java @native-codec/target/jvm.args -cp
 * native-codec/target/test-classes:$(cat cli/target/classpath.txt) dev.sharray.codec.JavaEnginesSideBySide [rounds]}
 */
public final class JavaEnginesSideBySide {
    private static final int K = 10;
    private static final int M = 4;
    private static final int SHARD = 1 << 20;
    private static final int BURST = 3;

    private JavaEnginesSideBySide() {
    }

    /**
     * @param args optional number of rounds (default 20)
     */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        ErasureCodec[] codecs = {
            ErasureCodec.builder(K, M).backend(Backend.NATIVE).build(),
            ErasureCodec.builder(K, M).backend(Backend.JAVA).build(),
            ErasureCodec.builder(K, M).build(new ScalarEngine()),
        };
        Random rnd = new Random(1);
        byte[][] arrays = new byte[K + M][SHARD];
        ByteBuffer[] buffers = new ByteBuffer[K + M];
        for (int i = 0; i < K + M; i++) {
            if (i < K) {
                rnd.nextBytes(arrays[i]);
            }
            buffers[i] = ByteBuffer.allocateDirect(SHARD).put(0, arrays[i]);
        }
        double[][] t = new double[codecs.length][rounds];
        for (int r = -5; r < rounds; r++) { // the first 5 rounds warm up the JIT
            for (int c = 0; c < codecs.length; c++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < BURST; i++) {
                    if (c == 0) {
                        codecs[c].encode(buffers);
                    } else {
                        codecs[c].encode(arrays);
                    }
                }
                if (r >= 0) {
                    t[c][r] = (System.nanoTime() - t0) / 1e9 / BURST;
                }
            }
        }
        double bytes = (double) K * SHARD;
        System.out.printf("java %s, RS(10,4) encode, 1 MiB shards, %d rounds x %d, GB/s of data (best / median)%n",
            System.getProperty("java.version"), rounds, BURST);
        double[] best = new double[codecs.length];
        double[] median = new double[codecs.length];
        for (int c = 0; c < codecs.length; c++) {
            double[] s = t[c].clone();
            Arrays.sort(s);
            best[c] = bytes / s[0] / 1e9;
            median[c] = bytes / s[s.length / 2] / 1e9;
        }
        for (int c = 0; c < codecs.length; c++) {
            System.out.printf("  %-24s %6.2f / %6.2f  (%.1fx / %.1fx the scalar engine)%n",
                codecs[c].backend() + "/" + codecs[c].simdLevel(), best[c], median[c], best[c] / best[2],
                median[c] / median[2]);
        }
    }
}
