package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
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
    void aReapPassDropsADeadHoldersReferencesOnAnArrayALiveProcessStillHolds(
            @org.junit.jupiter.api.io.TempDir Path root) throws Exception {
        // the pass reads each reference file and maps only those with something to change: a live holder beside a
        // dead one is such a file. A private root, so no other process's reaper reclaims the slot first.
        try (SharedArray a = SharedArray.builder(DType.INT32, 100).folder(root).create();
             SharedArray untouched = SharedArray.builder(DType.INT32, 100).folder(root).create();
             ChildJvm holder = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.tempFolder=" + root))) {
            holder.expect("ready ");
            holder.send("hold " + hex(a) + " 3");
            assertEquals("held", holder.readLine());
            assertEquals(4, total(a));
            holder.kill9();
            final ReapReport r = SharedArrays.reap(); // (its totals count other roots' processes too)
            assertEquals(1, total(a), "the dead holder's 3 references are dropped, ours stays: " + r);
            assertEquals(1, total(untouched));
            assertFalse(r.arraysDeleted().contains(a.path()), r.toString());
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
    void reapProcessFreesOnlyThatEndedProcessesFilesAndItsFolderGoesWithTheLastHeldArray(
            @org.junit.jupiter.api.io.TempDir Path root) throws Exception {
        // a root no other sharray process on this machine knows of, so no other reaper pass frees what this test
        // expects to stay; this process knows it through an array of its own there
        final List<String> inRoot = List.of("-Dsharray.tempFolder=" + root);
        try (SharedArray ours = SharedArray.builder(DType.INT8, 1).folder(root).create();
             ChildJvm doomed = ChildJvm.start(ArrayAgent.class, inRoot);
             ChildJvm bystander = ChildJvm.start(ArrayAgent.class, inRoot)) {
            final long doomedPid = Long.parseLong(doomed.expect("ready "));
            bystander.expect("ready ");
            doomed.send("create FLOAT64 1000");
            final Path unheld = Descriptor.fromBytes(HexFormat.of().parseHex(doomed.expect("desc "))).path();
            doomed.send("create INT64 10");
            final Descriptor d = Descriptor.fromBytes(HexFormat.of().parseHex(doomed.expect("desc ")));
            bystander.send("create FLOAT64 1000");
            final Path bystanders = Descriptor.fromBytes(HexFormat.of().parseHex(bystander.expect("desc "))).path();
            final Path folder = unheld.getParent();
            assertTrue(folder.startsWith(root) && bystanders.startsWith(root), folder + ", " + bystanders);
            try (SharedArray held = SharedArray.open(d)) {
                assertTrue(SharedArrays.reapProcess(doomedPid).isEmpty(), "nothing of a live process is touched");
                assertTrue(Files.exists(unheld));

                doomed.kill9();
                bystander.kill9();
                final ReapReport r = SharedArrays.reapProcess(doomedPid);
                assertEquals(List.of(unheld), r.arraysDeleted(), r.toString());
                assertFalse(Files.exists(unheld));
                assertTrue(Files.exists(d.path()), "we still hold it");
                assertTrue(Files.isDirectory(folder), "so its folder stays");
                assertTrue(Files.exists(bystanders), "another ended process's files are not this call's business");
                held.setLong(5, 3);
                assertEquals(5, held.getLong(3));
            }
            assertFalse(Files.exists(d.path()), "our release was the last one");
            assertFalse(Files.exists(folder), "and it removed the ended owner's emptied folder, without a reaper pass");
            SharedArrays.reap();
            assertFalse(Files.exists(bystanders.getParent()));
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
        Path mount = mountTmpfs("size=1m");
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

    /** @return a new folder with a tmpfs of {@code options} mounted on it (unmount it with {@code umount -l}) */
    private static Path mountTmpfs(String options) throws Exception {
        Path mount = Files.createTempDirectory("sharray-small-tmpfs");
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", options, "tmpfs", mount.toString())
            .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), "mounting a small tmpfs needs root (CI runs as root): " + out);
        return mount;
    }

    /** Out of inodes with bytes to spare: "No space left on device" alone sent the user to df, which showed room. */
    @Test
    void aTmpfsOutOfInodesSaysSo() throws Exception {
        Path mount = mountTmpfs("size=8m,nr_inodes=6");
        final List<SharedArray> made = new ArrayList<>();
        try {
            final java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class, () -> {
                while (true) { // the root, the user folder, the process folder, then two files per array
                    made.add(SharedArray.builder(DType.FLOAT64, 10).folder(mount).create());
                }
            });
            assertTrue(e.getMessage().contains("No space left on device") && e.getMessage().contains("out of inodes")
                && e.getMessage().contains("df -i"), e.getMessage());
            assertTrue(made.size() < 6, "inodes ran out after " + made.size() + " arrays");
        } finally {
            made.forEach(SharedArray::release);
            new ProcessBuilder("umount", "-l", mount.toString()).start().waitFor();
            Files.deleteIfExists(mount);
        }
    }

    /** A pool's copy of a heap argument: the user named neither its folder nor the array, so the advice differs. */
    @Test
    void anExceptionForAnArrayMadeOnTheUsersBehalfCarriesOtherAdvice() {
        final InsufficientSpaceException own = new InsufficientSpaceException(Path.of("/x"), 100, 10);
        assertTrue(own.getMessage().contains("SharedArray.builder(...).folder(...) or SHARRAY_TEMP_FOLDER"), own.getMessage());
        final InsufficientSpaceException other = own.withRemedy("name another with ProcessPool.Builder.tempFolder");
        assertEquals("not enough space in /x: the array needs 100 bytes, 10 bytes are free (name another with"
            + " ProcessPool.Builder.tempFolder)", other.getMessage());
        assertEquals(Path.of("/x"), other.folder());
        assertEquals(100, other.requestedBytes());
        assertEquals(10, other.freeBytes());
        assertEquals(own, other.getCause());
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
            writeSlot(ref, 0, 0, 0, garbage); // pid 0 (free), start 0, a count nobody holds
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

    /** Writes the state word of {@code ref} as another process would. */
    private static void writeState(Path ref, int state) throws Exception {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(ref, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.nativeOrder()).putInt(0, state), 8);
        }
    }

    /** Writes one holder slot of {@code ref} as another process would: pid, start, count. */
    private static void writeSlot(Path ref, int slot, long pid, long start, long count) throws Exception {
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(ref, java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(24).order(java.nio.ByteOrder.nativeOrder());
            b.putLong(pid).putLong(start).putLong(count).flip();
            ch.write(b, 64 + 32L * slot);
        }
    }

    @Test
    void aRefcountFileThatNoSharrayProcessWritesIsRefusedWhereItIsOpened() throws Exception {
        long initStart = ProcessIdentity.startOf(1); // pid 1 is alive: its slot counts as a live holder's
        assertTrue(initStart != 0, "pid 1's start time is readable");
        // {slot pid, slot start, slot count, state}: what the message names
        Object[][] cases = {
            {1L, initStart, -1L, RefCountFile.LIVE, "count -1"},
            {1L, 0L, 1L, RefCountFile.LIVE, "without a start time"},
            {-5L, 0L, 0L, RefCountFile.LIVE, "pid -5"},
            {ProcessWords.MAX_PID + 1, 1L, 0L, RefCountFile.LIVE, "pid " + (ProcessWords.MAX_PID + 1)}, // no Linux pid
            {0L, 0L, 0L, 0, "unknown state 0"},
            {0L, 0L, 0L, 9, "unknown state 9"},
        };
        for (Object[] c : cases) {
            SharedArray a = SharedArray.create(DType.FLOAT64, 8);
            Path data = a.path();
            Path ref = Segments.refPathFor(data);
            writeSlot(ref, 5, (Long) c[0], (Long) c[1], (Long) c[2]);
            writeState(ref, (Integer) c[3]);
            // before: a child opened and released it, and its release deleted the array the parent holds
            // (count -1); or the array outlived every holder (no start time); or the open spun 2 s (state)
            InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class, () -> RefCountFile.open(ref));
            assertEquals("refcount", e.field());
            assertTrue(e.getMessage().contains("is corrupt") && e.getMessage().contains((String) c[4]), e.getMessage());
            try (ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of())) {
                child.expect("ready ");
                child.send("open " + hex(a));
                String answer = child.readLine();
                assertTrue(answer.startsWith("error InvalidDescriptorException") && answer.contains("is corrupt"), answer);
                assertEquals(0, child.finish());
            }
            assertTrue(Files.exists(data), "the holder's array is still there");
            if ((Integer) c[3] != RefCountFile.LIVE) {
                writeState(ref, RefCountFile.LIVE); // a release deletes only a LIVE array: leave nothing behind
            }
            a.release();
            assertFalse(Files.exists(data), "its holder's last release deletes it: " + c[4]);
            assertFalse(Files.exists(ref));
        }
    }

    @Test
    void theLastReleaseDeletesTheRefcountFileAlsoWhenTheDataFileWasDeletedByHand() throws Exception {
        SharedArray a = SharedArray.create(DType.FLOAT64, 8);
        Path data = a.path();
        Files.delete(data);
        a.release();
        // before: "could not delete ... NoSuchFileException", and the refcount file stayed
        assertFalse(Files.exists(Segments.refPathFor(data)));
    }

    @Test
    void aViewTakenWhileAnotherThreadReleasesTheLastHandleIsRefusedNotCountedOnUnmappedMemory() throws Exception {
        // before: the view's reference went into the unmapped refcount file (SIGSEGV, the JVM ended) or brought
        // a closed segment back to one reference, its data unmapped under the view
        for (int round = 0; round < 2000; round++) {
            SharedArray a = SharedArray.create(DType.FLOAT64, 16);
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicReference<Throwable> ended = new java.util.concurrent.atomic.AtomicReference<>();
            Thread viewer = new Thread(() -> {
                started.countDown();
                try {
                    while (true) {
                        SharedArray v = a.retain();
                        v.setDouble(1.0, 3); // the view's memory is mapped while it holds its reference
                        v.release();
                    }
                } catch (Throwable t) {
                    ended.set(t); // asserted on the test's thread: a failure here would not fail the test
                }
            });
            viewer.start();
            started.await();
            Thread.onSpinWait();
            a.release();
            viewer.join();
            assertInstanceOf(IllegalStateException.class, ended.get(), "round " + round);
            assertTrue(ended.get().getMessage().contains("was released"), ended.get().getMessage());
            assertFalse(Files.exists(a.path()), "the last release deleted the file (round " + round + ")");
        }
    }

    @Test
    void localReferencesOfAReleasedHandleIsRefused() {
        SharedArray a = SharedArray.create(DType.FLOAT64, 16);
        a.release();
        // before: read the unmapped refcount file (SIGSEGV)
        assertThrows(IllegalStateException.class, () -> SharedArrays.localReferences(a));
    }
}
