package dev.sharray.codec.docs;

import dev.sharray.DType;
import dev.sharray.Descriptor;
import dev.sharray.JvmFlags;
import dev.sharray.SharedArray;
import dev.sharray.codec.Backend;
import dev.sharray.codec.ErasureCodec;
import dev.sharray.codec.Matrix;
import dev.sharray.codec.SharedStripes;
import dev.sharray.codec.TooFewShardsException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * The codec guide's example: RS(4,2) on all three stripe forms (byte[][], direct ByteBuffer[], a
 * SharedArray stripe), every operation, and a worker JVM that encodes a shared stripe in place.
 */
public final class CodecGuideExample {
    static final int K = 4;          // data shards
    static final int M = 2;          // parity shards
    static final int LEN = 100_000;  // bytes per shard (any length >= 1)

    /** What the example observed; every flag should be true. */
    public record Outcome(String codec, byte[][] knownAnswerParity, boolean javaBackendIdentical,
                          boolean verified, boolean rebuilt, boolean updateEqualsReencode,
                          boolean tooFewRefused, boolean buffersRebuilt, String workerBackend,
                          boolean workerParityVerified, boolean stripeRebuilt) {
    }

    public static Outcome run() throws Exception {
        // Backblaze's / klauspost's published RS(5,5) answer: parity {12,13} {10,11} {14,15} {90,91} {94,95}.
        byte[][] known = {{0, 1}, {4, 5}, {2, 3}, {6, 7}, {8, 9}, new byte[2], new byte[2], new byte[2],
            new byte[2], new byte[2]};
        ErasureCodec.create(5, 5).encode(known);

        ErasureCodec codec = ErasureCodec.create(K, M);  // Vandermonde, best backend (AUTO)

        // ---- byte[][]: k data arrays, then m parity arrays, all of one length
        byte[][] shards = new byte[K + M][LEN];
        Random random = new Random(42);
        for (int i = 0; i < K; i++) {
            random.nextBytes(shards[i]);
        }
        codec.encode(shards);                            // writes shards[4] and shards[5]
        byte[][] original = copy(shards);

        ErasureCodec java = ErasureCodec.builder(K, M).backend(Backend.JAVA).build();
        byte[][] viaJava = copy(shards);
        java.encode(viaJava);                            // every backend writes the same bytes
        boolean javaIdentical = Arrays.deepEquals(viaJava, original);

        boolean verified = codec.verify(shards);
        shards[1] = null;                                // lose a data shard ...
        shards[4] = null;                                // ... and a parity shard
        boolean[] present = {true, false, true, true, false, true};
        codec.reconstruct(shards, present);              // null entries get new arrays
        boolean rebuilt = Arrays.deepEquals(shards, original);

        byte[] newData = new byte[LEN];
        random.nextBytes(newData);
        codec.update(shards, 2, newData);                // reads old shard 2, new data and parity only
        byte[][] reencoded = copy(shards);
        codec.encode(reencoded);
        boolean updateOk = Arrays.deepEquals(shards, reencoded);

        boolean tooFewRefused = false;
        try {
            codec.reconstruct(shards, new boolean[] {true, false, false, false, true, true});
        } catch (TooFewShardsException e) {              // 3 present, 4 required
            tooFewRefused = e.present() == 3 && e.required() == K;
        }

        // ---- direct ByteBuffers: each shard is its buffer's position()..limit()
        ByteBuffer block = ByteBuffer.allocateDirect((K + M) * LEN);
        ByteBuffer[] buffers = new ByteBuffer[K + M];
        for (int i = 0; i < K + M; i++) {
            buffers[i] = block.slice(i * LEN, LEN);
        }
        for (int i = 0; i < K; i++) {
            buffers[i].duplicate().put(shards[i]);
        }
        codec.encode(buffers);
        buffers[0].duplicate().put(new byte[LEN]);       // wipe data shard 0
        codec.reconstructData(buffers, new boolean[] {false, true, true, true, true, true});
        byte[] shard0 = new byte[LEN];
        buffers[0].duplicate().get(shard0);
        byte[] parity0 = new byte[LEN];
        buffers[K].duplicate().get(parity0);
        boolean buffersRebuilt = Arrays.equals(shard0, shards[0]) && Arrays.equals(parity0, shards[K]);

        // ---- a SharedArray stripe: UINT8, shape (k + m, LEN), row i = shard i, coded in place
        try (SharedArray stripe = SharedArray.create(DType.UINT8, K + M, LEN)) {
            for (int i = 0; i < K; i++) {
                try (SharedArray row = stripe.select(0, i)) {
                    row.copyFrom(shards[i]);
                }
            }
            // A worker JVM encodes it in place: only the ~100-byte descriptor crosses.
            Process worker = startJvm(CodecGuideExample.class.getName());
            String workerBackend;
            try (PrintWriter toWorker = new PrintWriter(worker.getOutputStream(), true, StandardCharsets.UTF_8);
                 BufferedReader fromWorker = new BufferedReader(
                     new InputStreamReader(worker.getInputStream(), StandardCharsets.UTF_8))) {
                toWorker.println(HexFormat.of().formatHex(stripe.descriptor().toBytes()));
                workerBackend = fromWorker.readLine();   // the worker answers when the parity is written
            }
            if (worker.waitFor() != 0) {
                throw new IllegalStateException("worker failed with exit code " + worker.exitValue());
            }
            boolean workerParityVerified = codec.verify(stripe);

            for (int lost : new int[] {0, 5}) {          // lose row 0 (data) and row 5 (parity)
                try (SharedArray row = stripe.select(0, lost)) {
                    row.copyFrom(new byte[LEN]);
                }
            }
            codec.reconstruct(stripe, new boolean[] {false, true, true, true, true, false});
            byte[] all = stripe.toByteArray();
            boolean stripeRebuilt = true;
            for (int i = 0; i < K + M; i++) {
                stripeRebuilt &= Arrays.equals(all, i * LEN, (i + 1) * LEN, shards[i], 0, LEN);
            }
            return new Outcome(codec.toString(), Arrays.copyOfRange(known, 5, 10), javaIdentical, verified,
                rebuilt, updateOk, tooFewRefused, buffersRebuilt, workerBackend, workerParityVerified,
                stripeRebuilt);
        }
    }

    /** The worker side: opens the stripe a descriptor names, encodes it in place, releases it. */
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Descriptor stripe = Descriptor.fromBytes(HexFormat.of().parseHex(in.readLine()));
        SharedStripes.encode(stripe, K, M, Matrix.VANDERMONDE);
        System.out.println(SharedStripes.codec(K, M, Matrix.VANDERMONDE).backend());
    }

    private static byte[][] copy(byte[][] shards) {
        byte[][] c = new byte[shards.length][];
        for (int i = 0; i < shards.length; i++) {
            c[i] = shards[i].clone();
        }
        return c;
    }

    private static Process startJvm(String mainClass) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JvmFlags.forCurrentJvm());            // the project's flags (Vector API, exports)
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
