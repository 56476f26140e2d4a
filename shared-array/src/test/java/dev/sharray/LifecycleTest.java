package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** References across real JVMs, kill -9 of holders and owners, the reaper, modes and leaks. */
class LifecycleTest {
    private static String hex(SharedArray a) {
        return HexFormat.of().formatHex(a.descriptor().toBytes());
    }

    private static long total(SharedArray a) {
        return SharedArrays.list().stream().filter(i -> i.path().equals(a.path())).findFirst()
            .map(ArrayInfo::totalReferences).orElse(-1L);
    }

    @Test
    void twoJvmsTimesFourThreadsOpenAndReleaseConcurrentlyWithExactCounts() throws Exception {
        SharedArray a = SharedArray.create(DType.FLOAT64, 1024);
        Path file = a.path();
        String d = hex(a);
        try (ChildJvm c1 = ChildJvm.start(ArrayAgent.class, List.of());
             ChildJvm c2 = ChildJvm.start(ArrayAgent.class, List.of())) {
            c1.expect("ready ");
            c2.expect("ready ");
            {
                // 2 JVMs x 4 threads x 700 iterations x (open + view) = 11,200 acquire/release pairs per round
                c1.send("loop " + d + " 4 700");
                c2.send("loop " + d + " 4 700");
                assertEquals("looped", c1.readLine());
                assertEquals("looped", c2.readLine());
                assertEquals(1, total(a), "only the parent's reference remains at a quiescent point");
                c1.send("hold " + d + " 3");
                c2.send("hold " + d + " 2");
                assertEquals("held", c1.readLine());
                assertEquals("held", c2.readLine());
                assertEquals(6, total(a));
                c1.send("loop " + d + " 2 100"); // slots are reused, counts stay exact
                assertEquals("looped", c1.readLine());
                assertEquals(6, total(a));
            }
            a.release();
            assertTrue(Files.exists(file), "children still hold references");
            assertEquals(0, c1.finish()); // normal exit drops its references (shutdown hook)
            assertTrue(Files.exists(file), "the second child still holds references");
            assertEquals(0, c2.finish());
            assertFalse(Files.exists(file), "deleted after the last holder anywhere released");
            assertFalse(Files.exists(Segments.refPathFor(file)));
        }
    }

    @Test
    void aHolderKilledWithKill9DoesNotKeepTheFileAlive() throws Exception {
        SharedArray a = SharedArray.create(DType.INT32, 100);
        Path file = a.path();
        try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of())) {
            holder.expect("ready ");
            holder.send("hold " + hex(a) + " 5");
            assertEquals("held", holder.readLine());
            assertEquals(6, total(a));
            holder.kill9();
            assertTrue(Files.exists(file));
            a.release(); // the last live holder: the dead slot is reclaimed and the file deleted
            assertFalse(Files.exists(file));
        }
    }

    @Test
    void aKilledHoldersReferencesAreReclaimedByTheLastLiveHolderToRelease() throws Exception {
        SharedArray a = SharedArray.create(DType.INT32, 100);
        Path file = a.path();
        try (ChildJvm doomed = ChildJvm.start(ArrayAgent.class, List.of());
             ChildJvm keeper = ChildJvm.start(ArrayAgent.class, List.of())) {
            doomed.expect("ready ");
            keeper.expect("ready ");
            doomed.send("hold " + hex(a) + " 5");
            assertEquals("held", doomed.readLine());
            keeper.send("open " + hex(a));
            String id = keeper.expect("id ");
            assertEquals(7, total(a));
            doomed.kill9();
            a.release(); // the keeper, alive, still holds: the array stays, dead references or not
            assertTrue(Files.exists(file));
            keeper.send("release " + id);
            assertEquals("ok", keeper.readLine());
            assertFalse(Files.exists(file), "the keeper's release was the last live one: it reclaims and deletes");
        }
    }

    @Test
    void anArrayWhoseLastHolderDiedIsDeletedByTheReaperOrTheNextOpen() throws Exception {
        for (boolean byReap : new boolean[] {true, false}) {
            SharedArray a = SharedArray.create(DType.INT32, 100);
            Path file = a.path();
            Descriptor d = a.descriptor();
            try (ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of())) {
                holder.expect("ready ");
                holder.send("hold " + hex(a) + " 2");
                assertEquals("held", holder.readLine());
                a.release(); // others released before the holder died
                assertTrue(Files.exists(file));
                holder.kill9();
                assertTrue(Files.exists(file), "nothing has looked yet");
                if (byReap) {
                    ReapReport r = SharedArrays.reap();
                    // (another process's reaper may have won the race; either way the file must be gone)
                    assertTrue(r.arraysDeleted().contains(file) || !Files.exists(file), r.toString());
                } else {
                    // the next open reclaims the dead slot; its release is then the last one
                    SharedArray again = SharedArray.open(d);
                    assertEquals(1, total(again));
                    again.release();
                }
                assertFalse(Files.exists(file), byReap ? "reap" : "open");
            }
        }
    }

    @Test
    void theFolderOfAKilledOwnerIsReapedWhileALiveOwnersFolderIsUntouched() throws Exception {
        try (ChildJvm doomed = ChildJvm.start(ArrayAgent.class, List.of());
             ChildJvm alive = ChildJvm.start(ArrayAgent.class, List.of())) {
            long doomedPid = Long.parseLong(doomed.expect("ready "));
            long alivePid = Long.parseLong(alive.expect("ready "));
            doomed.send("create FLOAT64 1000");
            Descriptor dd = Descriptor.fromBytes(HexFormat.of().parseHex(doomed.expect("desc ")));
            alive.send("create FLOAT64 1000");
            Descriptor ad = Descriptor.fromBytes(HexFormat.of().parseHex(alive.expect("desc ")));
            Path doomedFolder = dd.path().getParent();
            Path aliveFolder = ad.path().getParent();
            assertTrue(doomedFolder.getFileName().toString().contains("-" + doomedPid + "-"));
            assertTrue(aliveFolder.getFileName().toString().contains("-" + alivePid + "-"));
            doomed.kill9();
            assertTrue(Files.exists(doomedFolder));
            ReapReport r = SharedArrays.reap();
            assertTrue(r.foldersRemoved().contains(doomedFolder) || !Files.exists(doomedFolder), r.toString());
            assertFalse(Files.exists(doomedFolder));
            assertTrue(Files.exists(ad.path()), "a live owner's array is never touched");
            assertTrue(SharedArrays.list().stream().anyMatch(i -> i.path().equals(ad.path()) && i.ownerAlive()));
            assertEquals(0, alive.finish());
            assertFalse(Files.exists(ad.path()), "normal exit removes the owner's unreferenced files");
            assertFalse(Files.exists(aliveFolder), "and its empty folder");
        }
    }

    @Test
    void aProcessThatOnlyUsedItsFolderRemovesItAtExit() throws Exception {
        // a process that ran a pool (ring and argument files in its folder) but never created or opened an array
        try (ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of())) {
            child.expect("ready ");
            child.send("folder");
            final Path folder = Path.of(child.expect("folder "));
            assertTrue(Files.isDirectory(folder));
            assertEquals(0, child.finish());
            assertFalse(Files.exists(folder), "the empty folder is removed at exit");
        }
    }

    @Test
    void aFolderOfADeadOwnerStaysWhileALiveProcessHoldsAnArrayInIt() throws Exception {
        try (ChildJvm owner = ChildJvm.start(ArrayAgent.class, List.of())) {
            owner.expect("ready ");
            owner.send("create INT64 10");
            Descriptor d = Descriptor.fromBytes(HexFormat.of().parseHex(owner.expect("desc ")));
            try (SharedArray held = SharedArray.open(d)) {
                owner.kill9();
                SharedArrays.reap();
                assertTrue(Files.exists(d.path()), "we still hold it");
                held.setLong(5, 3);
                assertEquals(5, held.getLong(3));
            }
            assertFalse(Files.exists(d.path()), "our release was the last one");
            SharedArrays.reap();
            assertFalse(Files.exists(d.path().getParent()));
        }
    }

    @Test
    void foldersAre0700AndFiles0600() throws Exception {
        try (SharedArray a = SharedArray.create(DType.UINT8, 10)) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(a.path().getParent())));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(a.path().getParent().getParent())));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(a.path())));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(Segments.refPathFor(a.path()))));
        }
    }

    @Test
    void aTooSmallTmpfsFailsAtCreateWithAClearMessageAndNoPartialFile() throws Exception {
        Path mount = Files.createTempDirectory("sharray-small-tmpfs");
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mount.toString())
            .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), "mounting a small tmpfs needs root (CI runs as root): " + out);
        try {
            InsufficientSpaceException e = assertThrows(InsufficientSpaceException.class,
                () -> SharedArray.builder(DType.FLOAT64, 1 << 18).folder(mount).create()); // 2 MiB
            assertTrue(e.getMessage().contains(mount.toString()), e.getMessage());
            assertTrue(e.requestedBytes() > 2 << 20);
            assertTrue(e.freeBytes() >= 0 && e.freeBytes() <= 1 << 20, e.getMessage());
            try (var files = Files.walk(mount)) {
                assertEquals(0, files.filter(Files::isRegularFile).count(), "no partial file");
            }
            try (SharedArray small = SharedArray.builder(DType.FLOAT64, 1000).folder(mount).create()) {
                small.setDouble(1, 999); // still usable for arrays that fit
                assertTrue(small.path().startsWith(mount));
            }
        } finally {
            // lazy: detached at once even while a mapping of a file in it is still being released
            new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor();
            Files.deleteIfExists(mount);
        }
    }

    @Test
    void aLeakIsReportedWithItsCreationSiteAndItsMemoryStaysMappedForLiveViews() throws Exception {
        LeakDetection before = SharedArrays.leakDetection();
        SharedArrays.setLeakDetection(LeakDetection.PARANOID);
        try {
            long leaks = SharedArrays.leaksReported();
            SharedArray view = leakBaseKeepView();
            for (int i = 0; i < 50 && SharedArrays.leaksReported() == leaks; i++) {
                System.gc();
                Thread.sleep(20);
            }
            assertEquals(leaks + 1, SharedArrays.leaksReported(), "the unreleased base array is reported once");
            assertTrue(LeakDetector.lastReport().contains("leakBaseKeepView"), LeakDetector.lastReport());
            for (int i = 0; i < 5; i++) {
                System.gc();
            }
            assertEquals(42.0, view.getDouble(7), "the view still reads the mapped memory");
            assertTrue(Files.exists(view.path()), "nothing is deleted behind the user's back");
            assertEquals(leaks + 1, SharedArrays.leaksReported(), "reported once only");
            view.release();
            assertTrue(Files.exists(view.path()), "the leaked reference keeps the file until exit or the reaper");
        } finally {
            SharedArrays.setLeakDetection(before);
        }
    }

    private static SharedArray leakBaseKeepView() {
        SharedArray base = SharedArray.create(DType.FLOAT64, 10);
        base.setDouble(42.0, 7);
        return base.slice(0, 0, 10, 1); // base is never released: a leak
    }

    @Test
    void aCorruptCountInAFreeRefcountSlotNeitherKeepsTheArrayAliveNorBreaksRelease(@org.junit.jupiter.api.io.TempDir Path root)
            throws Exception {
        for (long garbage : new long[] {5, -3}) {
            // an array file with its refcount file, no holder, and a count left in a free slot (pid 0)
            Path owner = Files.createDirectories(root.resolve(TempFolders.userFolderName()).resolve("host-1-t1-0000abcd"));
            Path data = owner.resolve("a1-garbage" + (garbage > 0 ? "p" : "n") + ".npy");
            byte[] header = NpyHeader.encode(DType.FLOAT64, new long[] {4});
            Files.write(data, java.util.Arrays.copyOf(header, header.length + 32));
            Path ref = Segments.refPathFor(data);
            Files.createFile(ref);
            RefCountFile.create(ref).unmap(); // slot 0: this pid, count 1
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(ref,
                    java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.ByteBuffer slot = java.nio.ByteBuffer.allocate(24).order(java.nio.ByteOrder.nativeOrder());
                slot.putLong(0).putLong(0).putLong(garbage).flip(); // pid 0 (free), start 0, a count nobody holds
                ch.write(slot, 64);
            }
            Descriptor d = new Descriptor(data, header.length, new long[] {4}, new long[] {8}, DType.FLOAT64,
                java.nio.ByteOrder.LITTLE_ENDIAN);
            SharedArray a = SharedArray.open(d);
            assertEquals(1, SharedArrays.localReferences(a), "the claimed slot counts this handle only");
            // before: the count kept the array alive after its last release (5), or release() threw
            // IllegalStateException "would go negative" and left the file mapped (-3)
            a.release();
            assertFalse(Files.exists(data), "the last release deletes the data file (garbage " + garbage + ")");
            assertFalse(Files.exists(ref), "and the refcount file");
        }
    }
}
