package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A released array's address range stays reserved and faulting: see {@link ReleasedRanges}. */
class ReleasedRangesTest {
    private static final String EMPTY_FILE = "/memfd:sharray-released";

    @ParameterizedTest
    @EnumSource(Backing.class)
    void aThreadStillUsingAHandleThatAnotherThreadReleasesGetsAnErrorAndTheJvmLives(Backing backing) throws Exception {
        // before: the child ended with SIGSEGV (exit 134) on both backings
        final int rounds = 200;
        try (ChildJvm child = ChildJvm.start(ReleaseRacer.class, List.of("-XX:TieredStopAtLevel=4"),
            backing.name(), Integer.toString(rounds))) {
            final String summary = child.readLine();
            assertEquals(0, child.finish(), summary);
            final Matcher m = Pattern.compile("rounds (\\d+) released-seen (\\d+) faulted (\\d+)").matcher(summary);
            assertTrue(m.matches(), summary);
            assertEquals(rounds, Integer.parseInt(m.group(2)) + Integer.parseInt(m.group(3)), summary);
            // the race was really run: some accesses began before the release and met the released range
            assertTrue(Integer.parseInt(m.group(3)) > 0, "no round faulted, so none raced: " + summary);
        }
    }

    /**
     * The late reader's range is pushed out of the reserved ones, and freed, while the reader still runs: on JDK 17,
     * which tells a thread of its fault only at its next safepoint, its next read met unmapped memory and the JVM
     * ended (SIGSEGV, exit 134: 3 runs in 3 of a review's probe). Ranges are now freed after two safepoints.
     */
    @org.junit.jupiter.api.Test
    void aLateReaderWhoseRangeIsPushedOutGetsAnErrorAndTheJvmLives() throws Exception {
        final int rounds = 3;
        final String errorFile = "-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/sharray-late-reader-%p.log";
        try (ChildJvm child = ChildJvm.start(PushedOutRangeReader.class, List.of(errorFile), Integer.toString(rounds))) {
            final List<String> lines = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                lines.add(child.readLine());
            }
            assertEquals(0, child.finish(), String.join("\n", lines));
            for (String line : lines) {
                assertTrue(line.equals("reader ended with java.lang.InternalError")
                    || line.equals("reader ended with java.lang.IllegalStateException"), line);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void aReleasedRangeHoldsNeitherTheFileNorItsAddressesForTheNextArrays(Backing backing) throws Exception {
        assertTrue(ReleasedRanges.reserving(), "this Linux has memfd_create");
        final SharedArray a = SharedArray.builder(DType.FLOAT64, 1 << 17).backing(backing).create();
        final long start = a.address() - a.offset();
        final long end = start + Files.size(a.path());
        final Path file = a.path();
        a.release();

        assertFalse(Files.exists(file));
        final String maps = Files.readString(Path.of("/proc/self/maps"));
        assertFalse(maps.contains(file.toString()), "the data file is mapped no more");
        assertFalse(openDescriptorTargets().contains(file.toString() + " (deleted)"),
            "no descriptor keeps the deleted file's memory");
        assertTrue(mappingAt(maps, start).endsWith(EMPTY_FILE + " (deleted)"), mappingAt(maps, start));

        // before: the kernel gave the same addresses to the next mapping of the same size
        final List<SharedArray> next = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                final SharedArray b = SharedArray.builder(DType.FLOAT64, 1 << 17).backing(backing).create();
                next.add(b);
                final long bStart = b.address() - b.offset();
                assertTrue(bStart >= end || bStart + Files.size(b.path()) <= start, "array " + i + " reuses the range");
            }
        } finally {
            next.forEach(SharedArray::release);
        }
    }

    /**
     * A NumPy file's mapping has the file's length, rarely a multiple of the page size: the range mapped over is
     * rounded up to whole pages, so its last page leaves the file too (and a mapping of less than a page is
     * reserved as well, not unmapped at once).
     */
    @org.junit.jupiter.api.Test
    void aReleasedNpyFileOfALengthBetweenPagesKeepsNoPageOfItMapped(@org.junit.jupiter.api.io.TempDir Path dir)
        throws Exception {
        assertTrue(ReleasedRanges.reserving(), "this Linux has memfd_create");
        for (int n : new int[] {100, 10_000}) {
            final Path file = dir.resolve("a" + n + ".npy");
            final byte[] header = NpyHeader.encode(DType.FLOAT64, new long[] {n});
            Files.write(file, java.util.Arrays.copyOf(header, header.length + 8 * n));
            assertTrue(Files.size(file) % 4096 != 0, "a length between pages");
            final SharedArray a = SharedArray.openNpy(file);
            final long start = a.address() - a.offset();
            a.release();

            final String maps = Files.readString(Path.of("/proc/self/maps"));
            assertFalse(maps.contains(file.toString()), n + " doubles: no page of the file is mapped any more");
            assertTrue(mappingAt(maps, start).endsWith(EMPTY_FILE + " (deleted)"), n + ": " + mappingAt(maps, start));
        }
    }

    @ParameterizedTest
    @EnumSource(Backing.class)
    void theOldestRangeIsFreedOnceMaxRangesLaterOnesAreReserved(Backing backing) throws Exception {
        ReleasedRanges.freeAll(); // earlier tests' ranges: the first array's is then the oldest
        final SharedArray first = SharedArray.builder(DType.FLOAT64, 512).backing(backing).create();
        final long start = first.address() - first.offset();
        first.release();
        assertTrue(mappingAt(Files.readString(Path.of("/proc/self/maps")), start).endsWith(EMPTY_FILE + " (deleted)"));

        // each release reserves two ranges: the data file's and the refcount file's. Past MAX_RANGES the oldest
        // quarter is freed at once (after two safepoints: a late reader's error comes at one on JDK 17); stop there,
        // before a later array takes the freed addresses and is released over them again
        int peak = 0;
        for (int i = 0; i < ReleasedRanges.MAX_RANGES && ReleasedRanges.reservedRanges() >= peak; i++) {
            peak = ReleasedRanges.reservedRanges();
            SharedArray.create(DType.FLOAT64, 512).release();
        }
        final int kept = ReleasedRanges.reservedRanges();
        assertTrue(peak <= ReleasedRanges.MAX_RANGES && kept < peak, "peak " + peak + ", then " + kept);
        assertTrue(kept >= ReleasedRanges.MAX_RANGES - ReleasedRanges.MAX_RANGES / 4, kept + " ranges reserved");
        BackgroundResourceReleaser.releasePendingResources(); // Chronicle unmaps on its own thread
        final String maps = Files.readString(Path.of("/proc/self/maps"));
        // before: Chronicle (MAPPED_FILE) kept its own reservation of the mapping, which stayed mapped after release
        assertFalse(mappingAt(maps, start).endsWith(EMPTY_FILE + " (deleted)"), "the oldest range was freed");
        final long reserved = maps.lines().filter(l -> l.endsWith(EMPTY_FILE + " (deleted)")).count();
        assertTrue(reserved <= ReleasedRanges.MAX_RANGES, reserved + " reserved map entries");
    }

    @org.junit.jupiter.api.Test
    void underAnAddressSpaceLimitReservedRangesNeverMakeTheNextArrayFail() throws Exception {
        // 6 GiB of address space, 64 arrays of 128 MiB released one after another: 8 GiB in all
        final long limit = 6L << 30;
        try (ChildJvm child = ChildJvm.start(AddressLimitChild.class, List.of(), Long.toString(limit),
            Long.toString(128L << 20), "64")) {
            final String summary = child.readLine();
            assertEquals(0, child.finish(), summary);
            final Matcher m = Pattern.compile("released (\\d+) bytes, reserved (\\d+) of limit (\\d+)").matcher(summary);
            assertTrue(m.matches(), summary);
            assertTrue(Long.parseLong(m.group(2)) <= limit / 8, summary);
        }
    }

    /** @return the /proc/self/maps line of the mapping that contains {@code address}, or "" */
    private static String mappingAt(String maps, long address) {
        for (String line : maps.split("\n")) {
            final int dash = line.indexOf('-');
            final int space = line.indexOf(' ');
            final long from = Long.parseUnsignedLong(line.substring(0, dash), 16);
            final long to = Long.parseUnsignedLong(line.substring(dash + 1, space), 16);
            if (Long.compareUnsigned(address, from) >= 0 && Long.compareUnsigned(address, to) < 0) {
                return line;
            }
        }
        return "";
    }

    private static List<String> openDescriptorTargets() throws Exception {
        final List<String> targets = new ArrayList<>();
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    targets.add(Files.readSymbolicLink(fd).toString());
                } catch (java.io.IOException e) {
                    // the listing's own descriptor, closed meanwhile
                }
            }
        }
        return targets;
    }
}
