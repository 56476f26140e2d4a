package dev.sharray;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The child of {@link InjectedSystemCallFaultsTest}: makes two arrays first (every class loaded, the folders made),
 * prints {@code ready <its thread id>} for a tracer to attach to that thread, then on {@code go} makes an array under
 * the tracer's injected faults (over Chronicle on {@code chronicle...}; lists the arrays, holding one, on {@code list};
 * opens a user's {@code .npy} file on {@code npy...}) and on {@code again}, the tracer gone,
 * the same once more; after each it prints the outcome and the files left under the root.
 */
public final class InjectedFaultChild {
    private InjectedFaultChild() {
    }

    public static void main(String[] args) throws IOException {
        final Path root = Path.of(System.getProperty("sharray.tempFolder"));
        for (int i = 0; i < 2; i++) {
            createAndRelease(Backing.AGRONA);
            createAndRelease(Backing.MAPPED_FILE);
            list();
            openNpy(root.resolve("user.npy"));
            filesUnder(root); // its classes too: the JDK reads classes with pread64, which a test injects faults into
        }
        System.out.println("ready " + Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName());
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String outcome;
            try {
                outcome = line.startsWith("list") ? list()
                    : line.startsWith("npy") ? "opened " + openNpy(root.resolve("user.npy"))
                    : "created " + createAndRelease(line.startsWith("chronicle") ? Backing.MAPPED_FILE : Backing.AGRONA);
            } catch (RuntimeException e) {
                outcome = "refused " + e;
            }
            System.out.println(line + ": " + outcome.replace('\n', ' '));
            System.out.println(line + ": files left " + filesUnder(root));
        }
    }

    /** @return what {@link SharedArrays#listAll()} found, with the array this child holds meanwhile */
    private static String list() {
        try (SharedArray held = SharedArray.create(DType.INT8, 4096)) {
            final ArrayListing listing = SharedArrays.listAll();
            final boolean listed = listing.arrays().stream().anyMatch(a -> a.path().equals(held.path()));
            return "listed " + listed + ", unlisted " + listing.unlisted();
        }
    }

    /** @return element 3 of a user's .npy file of four float64s, written here, opened and deleted */
    private static double openNpy(Path file) throws IOException {
        final String dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }";
        final ByteBuffer npy = ByteBuffer.allocate(128 + 32).order(ByteOrder.LITTLE_ENDIAN);
        npy.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.US_ASCII)).put((byte) 1).put((byte) 0);
        npy.putShort((short) (128 - 10)).put(dict.getBytes(StandardCharsets.US_ASCII));
        while (npy.position() < 127) {
            npy.put((byte) ' ');
        }
        npy.put((byte) '\n').putDouble(0).putDouble(1).putDouble(2).putDouble(42.5);
        Files.write(file, npy.array());
        try (SharedArray a = SharedArray.openNpy(file)) {
            return a.getDouble(3);
        } finally {
            Files.delete(file);
        }
    }

    /** @return what a write and read back of the new array's element gave */
    private static double createAndRelease(Backing backing) {
        try (SharedArray a = SharedArray.builder(DType.FLOAT64, 1 << 17).backing(backing).create()) {
            a.setDouble(42.5, 1000);
            return a.getDouble(1000);
        }
    }

    /** @return the regular files under {@code root}, or -1 when it cannot be read (under an injected fault) */
    private static long filesUnder(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).count();
        } catch (IOException | java.io.UncheckedIOException e) {
            return -1;
        }
    }
}
