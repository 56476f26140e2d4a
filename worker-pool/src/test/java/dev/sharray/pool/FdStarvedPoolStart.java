package dev.sharray.pool;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A child JVM for {@link DescriptorHeadroomTest}: starts a pool once, then holds every file descriptor but a few
 * and starts another. Prints {@code FAILED <message>}, {@code CLOSED <descriptors of ours closed meanwhile>},
 * {@code OPENED <descriptors opened and left>}, and after letting the descriptors go {@code RECOVERED <a task's answer>}.
 */
public final class FdStarvedPoolStart {
    private FdStarvedPoolStart() {
    }

    /** @param args the temp folder, and how many descriptors to leave free */
    public static void main(String[] args) throws Exception {
        final Path root = Path.of(args[0]);
        final int spare = Integer.parseInt(args[1]);
        try (ProcessPool pool = ProcessPool.builder().workers(1).tempFolder(root).build()) { // classes loaded
            pool.submit((Integer x) -> x, 1).get();
        }
        final List<FileInputStream> held = new ArrayList<>();
        try {
            while (true) {
                held.add(new FileInputStream("/dev/null"));
            }
        } catch (IOException expected) {
            // every descriptor taken
        }
        for (int i = 0; i < spare; i++) {
            held.remove(held.size() - 1).close();
        }
        final Map<String, String> before = descriptors();
        String failure = "none";
        try (ProcessPool pool = ProcessPool.builder().workers(2).tempFolder(root).build()) {
            failure = "none: the pool started";
        } catch (RuntimeException e) {
            failure = e.getMessage();
        }
        final Map<String, String> after = descriptors();
        final List<String> closed = new ArrayList<>();
        before.forEach((fd, target) -> {
            if (!target.equals(after.get(fd))) {
                closed.add(fd + "->" + target);
            }
        });
        final List<String> opened = new ArrayList<>();
        after.forEach((fd, target) -> {
            if (!before.containsKey(fd)) {
                opened.add(fd + "->" + target);
            }
        });
        for (FileInputStream in : held) {
            in.close();
        }
        System.out.println("FAILED " + failure);
        System.out.println("CLOSED " + closed);
        System.out.println("OPENED " + opened);
        try (ProcessPool pool = ProcessPool.builder().workers(1).tempFolder(root).build()) {
            System.out.println("RECOVERED " + pool.submit((Integer x) -> x + 41, 1).get());
        }
    }

    /** @return this process's descriptors and what each names, but the listing's own */
    private static Map<String, String> descriptors() throws IOException {
        final Map<String, String> m = new TreeMap<>();
        final String[] fds = new java.io.File("/proc/self/fd").list();
        for (String fd : fds) {
            try {
                final String target = Files.readSymbolicLink(Path.of("/proc/self/fd", fd)).toString();
                if (!target.startsWith("/proc")) {
                    m.put(fd, target);
                }
            } catch (IOException gone) {
                // the listing's own descriptor, closed by now
            }
        }
        return m;
    }
}
