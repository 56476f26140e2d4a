package dev.sharray.bench.codec;

import dev.sharray.codec.Backend;
import dev.sharray.codec.ErasureCodec;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/**
 * RS(10,4), 1 MiB shards, one thread: NATIVE, ISAL and JAVA interleaved in short bursts in one JVM, so
 * all backends see the same machine load (the build machines are shared); prints best and median
 * GB/s of data per backend and the NATIVE/ISAL ratios. A complement to {@link CodecBenchmark}, whose
 * per-backend runs happen minutes apart.
 *
 * <p>Usage: {@code java @jvm.args -cp ... dev.sharray.bench.codec.CodecSideBySide [rounds]}
 */
public final class CodecSideBySide {
    private static final int K = 10;
    private static final int M = 4;
    private static final int SHARD = 1 << 20;
    private static final int BURST = 5;

    private CodecSideBySide() {
    }

    /**
     * @param args optional number of rounds (default 60)
     */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        Backend[] backends = {Backend.NATIVE, Backend.ISAL, Backend.JAVA};
        ErasureCodec[] codecs = new ErasureCodec[backends.length];
        for (int b = 0; b < backends.length; b++) {
            codecs[b] = ErasureCodec.builder(K, M).backend(backends[b]).build();
        }
        Random rnd = new Random(1);
        byte[][] arrays = new byte[K + M][SHARD];
        ByteBuffer[] buffers = new ByteBuffer[K + M];
        for (int i = 0; i < K + M; i++) {
            if (i < K) {
                rnd.nextBytes(arrays[i]);
            }
            buffers[i] = ByteBuffer.allocateDirect(SHARD).put(0, arrays[i]);
        }
        boolean[] present = new boolean[K + M];
        Arrays.fill(present, true);
        for (int i : new int[] {0, 2, 4, 6}) {
            present[i] = false;
        }
        // [backend][op][round] seconds per operation; JAVA runs on byte[][], the native ones on direct buffers.
        double[][][] t = new double[backends.length][2][rounds];
        for (int r = -10; r < rounds; r++) { // the first 10 rounds warm up the JIT
            for (int b = 0; b < backends.length; b++) {
                ErasureCodec c = codecs[b];
                boolean heap = backends[b] == Backend.JAVA;
                long t0 = System.nanoTime();
                for (int i = 0; i < BURST; i++) {
                    if (heap) {
                        c.encode(arrays);
                    } else {
                        c.encode(buffers);
                    }
                }
                long t1 = System.nanoTime();
                for (int i = 0; i < BURST; i++) {
                    if (heap) {
                        c.reconstruct(arrays, present);
                    } else {
                        c.reconstruct(buffers, present);
                    }
                }
                long t2 = System.nanoTime();
                if (r >= 0) {
                    t[b][0][r] = (t1 - t0) / 1e9 / BURST;
                    t[b][1][r] = (t2 - t1) / 1e9 / BURST;
                }
            }
        }
        double bytes = (double) K * SHARD;
        String[] ops = {"encode", "reconstruct4"};
        System.out.printf("java %s, RS(10,4) 1 MiB shards, %d rounds x %d ops, GB/s of data (best / median)%n",
            System.getProperty("java.version"), rounds, BURST);
        double[][] best = new double[backends.length][2];
        double[][] median = new double[backends.length][2];
        for (int b = 0; b < backends.length; b++) {
            for (int o = 0; o < 2; o++) {
                double[] s = t[b][o].clone();
                Arrays.sort(s);
                best[b][o] = bytes / s[0] / 1e9;
                median[b][o] = bytes / s[s.length / 2] / 1e9;
                System.out.printf("  %-6s %-13s %6.2f / %6.2f  (%s)%n", backends[b], ops[o], best[b][o], median[b][o],
                    codecs[b].simdLevel());
            }
        }
        for (int o = 0; o < 2; o++) {
            System.out.printf("  NATIVE/ISAL %-13s best %.2fx, median %.2fx%n", ops[o], best[0][o] / best[1][o],
                median[0][o] / median[1][o]);
        }
    }
}
