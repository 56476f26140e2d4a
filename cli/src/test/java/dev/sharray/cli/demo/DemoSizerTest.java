package dev.sharray.cli.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.cli.CliException;
import dev.sharray.pool.ProcessPool;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Where the demo's arrays go and how large it may be. A container's default 64 MiB {@code /dev/shm} made every demo
 * fail ("not enough room for the demo"), even {@code -s 1K}, while the library would have put its arrays in
 * {@code java.io.tmpdir}; a small configured folder did the same (a flat 128 MiB of headroom).
 */
class DemoSizerTest {
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;
    private static final Path SHM = Path.of("/dev/shm");
    private static final Path TMP = Path.of("/tmp");

    @Test
    void aContainersSmallDevShmSendsTheDemoToTheTempFolder() {
        final DemoSizer.Folder shm = new DemoSizer.Folder(SHM, 64 * MIB);
        final DemoSizer.Folder tmp = new DemoSizer.Folder(TMP, 50 * GIB);
        assertEquals(new DemoSizer.Fit(TMP, 1024), DemoSizer.fit(1024, shm, tmp, 20 * GIB, 0));
        assertEquals(new DemoSizer.Fit(TMP, GIB), DemoSizer.fit(GIB, shm, tmp, 20 * GIB, 0));
    }

    @Test
    void devShmIsPreferredWhileADemoOfAtLeastOneMibFitsThere() {
        final DemoSizer.Folder tmp = new DemoSizer.Folder(TMP, 50 * GIB);
        assertEquals(new DemoSizer.Fit(SHM, GIB), DemoSizer.fit(GIB, new DemoSizer.Folder(SHM, 2 * GIB), tmp, 20 * GIB, 0));
        // room for less than asked: a smaller demo in memory, as before ((1 GiB - 128 MiB) * 0.8 / 1.4)
        assertEquals(new DemoSizer.Fit(SHM, 512 * MIB), DemoSizer.fit(GIB, new DemoSizer.Folder(SHM, GIB), tmp, 20 * GIB, 0));
        // memory is the bound too: tmpfs pages are memory
        assertEquals(SHM, DemoSizer.fit(GIB, new DemoSizer.Folder(SHM, 20 * GIB), tmp, GIB, 0).root());
        assertTrue(DemoSizer.fit(GIB, new DemoSizer.Folder(SHM, 20 * GIB), tmp, GIB, 0).bytes() < GIB);
    }

    @Test
    void aSmallConfiguredFolderStillRunsASmallDemo() {
        final DemoSizer.Folder small = new DemoSizer.Folder(TMP, 60 * MIB);
        assertEquals(new DemoSizer.Fit(TMP, 1024), DemoSizer.fit(1024, null, small, 20 * GIB, 0));
        assertEquals(new DemoSizer.Fit(TMP, 25 * MIB), DemoSizer.fit(GIB, null, small, 20 * GIB, 0));
    }

    /** The workers' rings (2 MiB each) go to the same folder: the demo was sized without them, and then failed. */
    @Test
    void theWorkersRingsAreLeftRoomFor() {
        final long rings = 2 * ProcessPool.tempBytesPerWorker();
        final DemoSizer.Folder small = new DemoSizer.Folder(TMP, 8 * MIB);
        final long bytes = DemoSizer.fit(GIB, null, small, 20 * GIB, rings).bytes();
        assertTrue(bytes * DemoSizer.FOOTPRINT + rings <= 8 * MIB, bytes + " bytes of data and parity beside the rings");
        assertTrue(bytes >= MIB, "a small demo still runs: " + bytes);
        final CliException e = assertThrows(CliException.class, () -> DemoSizer.fit(GIB, null, small, 20 * GIB,
            8 * ProcessPool.tempBytesPerWorker()));
        assertTrue(e.getMessage().contains("of it for the workers' rings"), e.getMessage());
    }

    @Test
    void whereNotEvenOneMibFitsTheMessageNamesTheFolders() {
        final CliException e = assertThrows(CliException.class, () -> DemoSizer.fit(GIB,
            new DemoSizer.Folder(SHM, 64 * MIB), new DemoSizer.Folder(TMP, MIB), 20 * GIB, 0));
        assertTrue(e.getMessage().startsWith("not enough room for the demo: /tmp has 1.00 MiB free"), e.getMessage());
        assertTrue(e.getMessage().contains("(/dev/shm has 64.00 MiB free)"), e.getMessage());
    }
}
