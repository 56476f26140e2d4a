package dev.sharray.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.ChildJvm;
import dev.sharray.JvmFlags;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * AUTO falls back to the Java backend, with one log line saying why, where the native library cannot load; the Java
 * backend runs with or without the Vector API's module.
 */
class FallbackTest {

    /** Child side: reports the backend AUTO chose and the known-answer parity it computes. */
    public static void main(String[] args) {
        try {
            ErasureCodec.builder(2, 1).backend(Backend.NATIVE).build();
            System.out.println("refused no");
        } catch (IllegalStateException e) {
            System.out.println("refused " + e.getMessage());
        }
        ErasureCodec codec = ErasureCodec.create(5, 5);
        byte[][] shards = {{0, 1}, {4, 5}, {2, 3}, {6, 7}, {8, 9}, new byte[2], new byte[2], new byte[2],
            new byte[2], new byte[2]};
        codec.encode(shards);
        System.out.println("codec " + codec.backend() + " " + codec.simdLevel() + " "
            + Arrays.deepToString(Arrays.copyOfRange(shards, 5, 10)));
        // without the native library, checksums of direct memory go through heap copies, which the JVM guards
        byte[] bytes = "123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.out.println("crc " + Integer.toHexString(Crc32c.update(0, ByteBuffer.allocateDirect(9).put(bytes).flip())));
        try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(1 << 16), 0);
            ByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, 1 << 16);
            ch.truncate(4096);
            Crc32c.update(0, mapped);
            Thread.sleep(1); // back from native code: the JVM throws an error it deferred, at the latest here
            System.out.println("fault none");
        } catch (InternalError e) {
            System.out.println("fault " + e.getMessage());
        } catch (IOException | InterruptedException e) {
            System.out.println("fault " + e);
        }
    }

    @Test
    void autoUsesJavaWhenTheNativeLibraryIsUnavailable(@TempDir Path dir) throws Exception {
        try (ChildJvm child = ChildJvm.start(FallbackTest.class, List.of("-Dsharray.codec.disableNative=true",
            "-Dorg.slf4j.simpleLogger.logFile=System.out"), dir.resolve("truncated").toString())) {
            assertEquals("native codec library unavailable: disabled by -Dsharray.codec.disableNative=true",
                child.expect("refused "), "asking for NATIVE explicitly is refused with the reason");
            assertEquals("dev.sharray.codec.ErasureCodec - sharray codec: native library unavailable (disabled by "
                + "-Dsharray.codec.disableNative=true); using the Java Vector API backend", child.expect("[main] WARN "));
            assertEquals("JAVA VECTOR_API [[12, 13], [10, 11], [14, 15], [90, 91], [94, 95]]", child.expect("codec "));
            assertEquals("e3069283", child.expect("crc "), "CRC-32C of \"123456789\" (the standard check value)");
            assertTrue(child.expect("fault ").startsWith("a fault occurred in "),
                "a truncated mapping gives the JVM's error (copies are guarded), not the end of the JVM");
            assertEquals(0, child.finish());
        }
    }

    /**
     * Child side without the Vector API module: for each backend named in the arguments, the engine it runs, the
     * known-answer parity of {@link #main} from heap arrays and from direct buffers, and whether four lost shards
     * come back.
     */
    public static final class NoVectorModule {
        public static void main(String[] args) {
            System.out.println("module " + ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent());
            for (String name : args) {
                ErasureCodec codec = ErasureCodec.builder(5, 5).backend(Backend.valueOf(name)).build();
                byte[][] shards = {{0, 1}, {4, 5}, {2, 3}, {6, 7}, {8, 9}, new byte[2], new byte[2], new byte[2],
                    new byte[2], new byte[2]};
                codec.encode(shards);
                ByteBuffer[] buffers = new ByteBuffer[10];
                for (int i = 0; i < 10; i++) {
                    buffers[i] = ByteBuffer.allocateDirect(2).put(0, i < 5 ? shards[i] : new byte[2]);
                }
                codec.encode(buffers); // native addresses: staged through the engine's heap chunks
                byte[][] fromBuffers = new byte[5][2];
                for (int p = 0; p < 5; p++) {
                    buffers[5 + p].get(0, fromBuffers[p]);
                }
                byte[][] damaged = new byte[10][];
                boolean[] present = new boolean[10];
                for (int i = 0; i < 10; i++) {
                    present[i] = i != 0 && i != 2 && i != 6 && i != 9;
                    damaged[i] = present[i] ? shards[i].clone() : new byte[2];
                }
                codec.reconstruct(damaged, present);
                System.out.println(name + " " + codec.backend() + " " + codec.simdLevel() + " "
                    + Arrays.deepToString(Arrays.copyOfRange(shards, 5, 10)) + " buffers "
                    + Arrays.deepEquals(fromBuffers, Arrays.copyOfRange(shards, 5, 10)) + " reconstructed "
                    + Arrays.deepEquals(damaged, shards) + " verified " + codec.verify(buffers));
            }
        }
    }

    /**
     * Runs {@link NoVectorModule} for {@code backends} in a JVM started with the project's flags less
     * {@code --add-modules=jdk.incubator.vector}, as the pool's worker JVMs may be.
     *
     * @return its stdout and stderr, after a normal exit
     */
    private static String withoutVectorModule(List<String> options, String... backends) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String flag : JvmFlags.forCurrentJvm()) {
            if (!flag.equals("--add-modules=jdk.incubator.vector")) {
                cmd.add(flag);
            }
        }
        cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Dorg.slf4j.simpleLogger.logFile=System.out"));
        cmd.addAll(options);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), NoVectorModule.class.getName()));
        cmd.addAll(List.of(backends));
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, child.waitFor(), out);
        assertEquals("false", line(out, "module "), "the child must run without the Vector API's module: " + out);
        return out;
    }

    private static String line(String out, String prefix) {
        return out.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).findFirst()
            .orElse("no line '" + prefix + "' in: " + out);
    }

    /**
     * Without {@code --add-modules=jdk.incubator.vector}, JAVA used to be refused ("the JAVA backend needs
     * --add-modules=jdk.incubator.vector"); now it runs the scalar engine, bit for bit as the others, says so once
     * at WARN with the flag that brings the vector speed, and AUTO still takes NATIVE, silently.
     */
    @Test
    void javaWithoutTheVectorModuleRunsTheScalarEngine() throws Exception {
        String out = withoutVectorModule(List.of(), "JAVA", "JAVA", "AUTO");
        assertEquals("dev.sharray.codec.ErasureCodec - sharray codec: the JAVA backend runs its scalar engine "
            + "(JAVA_SCALAR): this JVM lacks jdk.incubator.vector; start it with --add-modules=jdk.incubator.vector for"
            + " the Vector API's speed", line(out, "[main] WARN "));
        assertEquals(1, out.lines().filter(l -> l.contains(" WARN ")).count(), "one WARN line, once: " + out);
        assertEquals("JAVA JAVA_SCALAR [[12, 13], [10, 11], [14, 15], [90, 91], [94, 95]] buffers true reconstructed "
            + "true verified true", line(out, "JAVA "));
        assertTrue(line(out, "AUTO ").startsWith("NATIVE "), out);
    }

    /**
     * With the native library off and no {@code --add-modules=jdk.incubator.vector}, AUTO used to find no backend at
     * all (IllegalStateException naming both reasons); now it falls back to the scalar Java engine, with one WARN line
     * that gives the native library's failure and the flag for the vector speed.
     */
    @Test
    void autoWithoutNativeLibraryNorVectorModuleFallsBackToTheScalarEngine() throws Exception {
        String out = withoutVectorModule(List.of("-Dsharray.codec.disableNative=true"), "AUTO", "JAVA", "AUTO");
        assertEquals("dev.sharray.codec.ErasureCodec - sharray codec: native library unavailable (disabled by "
            + "-Dsharray.codec.disableNative=true); using the scalar Java backend (JAVA_SCALAR): this JVM lacks "
            + "jdk.incubator.vector; start it with --add-modules=jdk.incubator.vector for the Vector API's speed",
            line(out, "[main] WARN "));
        assertEquals(1, out.lines().filter(l -> l.contains(" WARN ")).count(), "one WARN line, once: " + out);
        assertEquals("JAVA JAVA_SCALAR [[12, 13], [10, 11], [14, 15], [90, 91], [94, 95]] buffers true reconstructed "
            + "true verified true", line(out, "AUTO "));
        assertEquals("JAVA JAVA_SCALAR [[12, 13], [10, 11], [14, 15], [90, 91], [94, 95]] buffers true reconstructed "
            + "true verified true", line(out, "JAVA "));
    }

    /** Child side with little direct memory: what NATIVE and then AUTO give. */
    public static final class LittleDirectMemory {
        public static void main(String[] args) {
            for (Backend backend : new Backend[] {Backend.NATIVE, Backend.AUTO}) {
                try {
                    ErasureCodec codec = ErasureCodec.builder(5, 5).backend(backend).build();
                    byte[][] shards = {{0, 1}, {4, 5}, {2, 3}, {6, 7}, {8, 9}, new byte[2], new byte[2], new byte[2],
                        new byte[2], new byte[2]};
                    codec.encode(shards);
                    System.out.println(backend + " built " + Arrays.deepToString(Arrays.copyOfRange(shards, 5, 10)));
                } catch (IllegalStateException e) {
                    System.out.println(backend + " refused " + e.getMessage());
                } catch (Error e) {
                    System.out.println(backend + " error " + e);
                }
            }
        }
    }

    /**
     * With too little direct memory to check the native library's file (-XX:MaxDirectMemorySize=64k: JDK 17 reads the
     * file through a 131 KiB direct buffer), the library's class initialiser threw an OutOfMemoryError: NATIVE failed
     * with it and every later codec, AUTO included, with NoClassDefFoundError for the rest of the JVM's life. Now the
     * failure is recorded as any other: NATIVE is refused with the reason (or builds, where the check needs no direct
     * memory, as on JDK 25), and AUTO works.
     */
    @Test
    void aShortageOfDirectMemoryAtFirstUseLeavesTheCodecUsable() throws Exception {
        try (ChildJvm child = ChildJvm.start(LittleDirectMemory.class, List.of("-XX:MaxDirectMemorySize=64k"))) {
            final String nativeOutcome = child.expect("NATIVE ");
            assertTrue(nativeOutcome.startsWith("built ") || nativeOutcome.startsWith("refused native codec library "
                + "unavailable: java.lang.OutOfMemoryError"), nativeOutcome);
            assertEquals("built [[12, 13], [10, 11], [14, 15], [90, 91], [94, 95]]", child.expect("AUTO "));
            assertEquals(0, child.finish());
        }
    }

    @Test
    void nativeLoadsHereAndAutoPicksIt() throws Exception {
        assertEquals(null, NativeLib.failure(), "in this JVM the native library must load");
        assertEquals(Backend.NATIVE, ErasureCodec.create(2, 1).backend());
    }
}
