package dev.sharray;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A child JVM for {@link AddressSpaceTest}, run under a small address-space limit: creates an array larger than it
 * with each backing and prints {@code "<BACKING> <exception>"} for each, then {@code "files N"} (what is left in its
 * folder) and {@code "small created"} once a small array works.
 *
 * <p>Arguments: the root folder, the large array's bytes.
 */
public final class AddressSpaceChild {
    private AddressSpaceChild() {
    }

    public static void main(String[] args) throws Exception {
        final Path root = Path.of(args[0]);
        for (Backing backing : new Backing[] {Backing.MAPPED_FILE, Backing.AGRONA}) {
            try (SharedArray a = SharedArray.builder(DType.INT8, Long.parseLong(args[1])).backing(backing).folder(root)
                    .create()) {
                System.out.println(backing + " created " + a.size());
            } catch (RuntimeException e) {
                System.out.println(backing + " " + e);
            }
        }
        try (Stream<Path> files = Files.list(SharedArrays.processFolder(root))) {
            System.out.println("files " + files.count());
        }
        try (SharedArray small = SharedArray.builder(DType.INT8, 4096).folder(root).create()) {
            System.out.println("small created");
        }
    }
}
