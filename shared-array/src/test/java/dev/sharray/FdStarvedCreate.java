package dev.sharray;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A child JVM for {@link OutOfDescriptorsTest}: takes every file descriptor it may open, then creates an array.
 * Prints {@code "create <exception>"} (or {@code "create ok"}), then, with its descriptors back, {@code "files N"} (what
 * the failed create left in its folder) and {@code "created"} once a create works.
 */
public final class FdStarvedCreate {
    private FdStarvedCreate() {
    }

    public static void main(String[] args) throws Exception {
        final SharedArray first = SharedArray.create(DType.FLOAT64, 10); // folder made, reaper run
        final List<FileInputStream> taken = new ArrayList<>();
        try {
            while (true) {
                taken.add(new FileInputStream("/dev/null"));
            }
        } catch (IOException e) {
            // out of descriptors (EMFILE)
        }
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 10)) {
            System.out.println("create ok");
        } catch (RuntimeException e) {
            System.out.println("create " + e);
        }
        for (FileInputStream in : taken) {
            in.close();
        }
        try (Stream<Path> files = Files.list(SharedArrays.processFolder())) {
            System.out.println("files " + files.count());
        }
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 10)) {
            System.out.println("created");
        }
        first.release();
    }
}
