package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Random;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native libraries inside jars: extracted once per content into a cache folder named by it, a bad cached
 * copy replaced, an unusable cache root skipped; and JNA loading its own library from that cache. The
 * race of many JVMs extracting at once is in native-codec's {@code NativeLibExtractionTest}.
 */
class NativeFilesTest {
    private static final String RESOURCE = "lib/libdemo.so";

    @TempDir
    static Path tmp;

    private static byte[] library;
    private static Path jar;

    @BeforeAll
    static void buildJar() throws IOException {
        library = new byte[70_001];
        new Random(7).nextBytes(library);
        jar = tmp.resolve("demo-native.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry(RESOURCE));
            out.write(library);
            out.closeEntry();
        }
    }

    @Test
    void corruptCachedCopiesAreReplacedAndGoodOnesReused() throws IOException {
        Path cache = tmp.resolve("cache-corrupt");
        Path target = cache.resolve(NativeFiles.folderName(library)).resolve("libdemo.so");
        URL url = jarUrl();

        Files.createDirectories(target.getParent());
        Files.write(target, new byte[] {1, 2, 3}); // wrong size
        assertEquals(target, NativeFiles.locate(url, List.of(cache)));
        assertArrayEquals(library, Files.readAllBytes(target));

        byte[] sameSize = library.clone();
        sameSize[sameSize.length / 2] ^= 0x5A; // right size, wrong bytes: the byte comparison catches it
        Files.write(target, sameSize);
        assertEquals(target, NativeFiles.locate(url, List.of(cache)));
        assertArrayEquals(library, Files.readAllBytes(target));

        Object inode = Files.readAttributes(target, "unix:ino").get("ino");
        Path stale = target.resolveSibling(".libdemo.so.1.dead.tmp");
        Files.write(stale, new byte[10]);
        Files.setLastModifiedTime(stale, FileTime.fromMillis(System.currentTimeMillis() - 3_600_000));
        assertEquals(target, NativeFiles.locate(url, List.of(cache)));
        assertEquals(inode, Files.readAttributes(target, "unix:ino").get("ino"), "a good copy is reused, not rewritten");

        Files.write(target, new byte[0]);
        NativeFiles.locate(url, List.of(cache));
        assertFalse(Files.exists(stale), "temp files left by crashed extractions long ago are removed");
        assertEquals(List.of(target), filesUnder(cache));
    }

    /**
     * A library's class initialiser locates it once per JVM and records a failure for good: on an interrupted thread
     * the extraction's and the check's channels were closed, and the native codec was unavailable for the JVM's life.
     */
    @Test
    void anInterruptedThreadExtractsAndReusesTheLibraryAndKeepsItsInterrupt() throws IOException {
        final Path cache = tmp.resolve("cache-interrupted");
        final Path target = cache.resolve(NativeFiles.folderName(library)).resolve("libdemo.so");
        try {
            Thread.currentThread().interrupt();
            assertEquals(target, NativeFiles.locate(jarUrl(), List.of(cache)), "extracted");
            assertTrue(Thread.currentThread().isInterrupted(), "the caller's interrupt is kept");
            assertEquals(target, NativeFiles.locate(jarUrl(), List.of(cache)), "the cached copy checked and reused");
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
        assertArrayEquals(library, Files.readAllBytes(target));
        try (Stream<Path> files = Files.list(target.getParent())) {
            assertEquals(List.of(target), files.collect(Collectors.toList()), "no temporary file left");
        }
    }

    @Test
    void anotherBuildGetsAnotherFolder() throws IOException {
        byte[] other = library.clone();
        other[0] ^= 1;
        assertFalse(NativeFiles.folderName(other).equals(NativeFiles.folderName(library)));
        assertFalse(NativeFiles.folderName(java.util.Arrays.copyOf(library, library.length - 1))
            .equals(NativeFiles.folderName(library)));
    }

    @Test
    void anUnusableRootFallsBackToTheNext() throws IOException {
        Path notAFolder = Files.write(tmp.resolve("plain-file"), new byte[1]);
        Path second = tmp.resolve("cache-second");
        Path got = NativeFiles.locate(jarUrl(), List.of(notAFolder, second));
        assertEquals(second.resolve(NativeFiles.folderName(library)).resolve("libdemo.so"), got);
        assertArrayEquals(library, Files.readAllBytes(got));
    }

    /**
     * The fallback root in java.io.tmpdir, a folder every user can write to, is used only when it is this
     * user's own real folder that nobody else can write to: otherwise another user could swap the library
     * between the byte check and dlopen.
     */
    @Test
    void aSharedFallbackRootMustBeOurs() throws IOException {
        assertEquals(0, (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"),
            "giving a folder to another uid needs root (CI runs as root, as the disk-full tests do)");
        String tmpdir = System.getProperty("java.io.tmpdir");
        Path shared = Files.createDirectory(tmp.resolve("shared-tmp"));
        System.setProperty("java.io.tmpdir", shared.toString());
        try {
            Path root = NativeFiles.sharedTempRoot();
            assertEquals(shared.resolve(TempFolders.userFolderName() + "-native"), root);
            Path got = NativeFiles.locate(jarUrl(), List.of(root));
            assertArrayEquals(library, Files.readAllBytes(got));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(root)));

            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
            IOException open = assertThrows(IOException.class, () -> NativeFiles.locate(jarUrl(), List.of(root)));
            assertTrue(open.getMessage().contains("writable by other users"), open.getMessage());
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));

            Files.setAttribute(root, "unix:uid", 4321);
            IOException foreign = assertThrows(IOException.class, () -> NativeFiles.locate(jarUrl(), List.of(root)));
            assertTrue(foreign.getMessage().contains("belongs to uid 4321"), foreign.getMessage());
            Files.setAttribute(root, "unix:uid", 0);

            Path moved = Files.move(root, shared.resolve("elsewhere"));
            Files.createSymbolicLink(root, moved);
            IOException link = assertThrows(IOException.class, () -> NativeFiles.locate(jarUrl(), List.of(root)));
            assertTrue(link.getMessage().contains("symbolic link"), link.getMessage());
        } finally {
            System.setProperty("java.io.tmpdir", tmpdir);
        }
    }

    /**
     * A java.io.tmpdir that does not exist (mistyped, not mounted yet): the fallback made it, parents and all, and
     * the tree stayed (jvmvariety review 48: /nonexistent/tmp/...). The fallback is skipped instead.
     */
    @Test
    void aMissingTempFolderIsNotMadeForTheFallback() throws IOException {
        final String tmpdir = System.getProperty("java.io.tmpdir");
        final Path missing = tmp.resolve("not-there").resolve("tmp");
        System.setProperty("java.io.tmpdir", missing.toString());
        try {
            final Path root = NativeFiles.sharedTempRoot();
            final IOException e = assertThrows(IOException.class, () -> NativeFiles.locate(jarUrl(), List.of(root)));
            assertTrue(e.getMessage().contains("java.io.tmpdir " + missing + " is not a folder"), e.getMessage());
            assertFalse(Files.exists(tmp.resolve("not-there")), "the missing folder was made");
        } finally {
            System.setProperty("java.io.tmpdir", tmpdir);
        }
    }

    /**
     * Any root may be a folder shared with other users ({@code -Dsharray.nativeCache}, {@code XDG_CACHE_HOME}):
     * a cached copy with the right bytes is still not loaded from a folder another user can write to, or
     * one inside such a folder, since that user could swap the file (or the folder) between the byte check
     * and dlopen. The library goes to the next root instead. Runs as any user.
     */
    @Test
    void aLibraryIsNeverLoadedFromAFolderOthersCanChange() throws IOException {
        final URL url = jarUrl();
        final Path fallback = tmp.resolve("cache-private");
        final Path expected = fallback.resolve(NativeFiles.folderName(library)).resolve("libdemo.so");

        // a team's cache root, open to all: another user's correct copy sits in a folder anyone can write to
        final Path open = Files.createDirectory(tmp.resolve("cache-open"));
        final Path planted = open.resolve(NativeFiles.folderName(library)).resolve("libdemo.so");
        Files.createDirectories(planted.getParent());
        Files.write(planted, library);
        Files.setPosixFilePermissions(planted.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(expected, NativeFiles.locate(url, List.of(open, fallback)));
        IOException leaf = assertThrows(IOException.class, () -> NativeFiles.extract(library, "libdemo.so", open));
        assertTrue(leaf.getMessage().contains("writable by other users"), leaf.getMessage());

        // our own private folder, but inside a root anyone can write to (not sticky): it can be renamed away
        Files.setPosixFilePermissions(planted.getParent(), PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertEquals(expected, NativeFiles.locate(url, List.of(open, fallback)));

        // sticky, as /tmp is: others cannot rename or replace what is ours in it
        Files.setAttribute(open, "unix:mode", 01777);
        assertEquals(planted, NativeFiles.locate(url, List.of(open, fallback)));

        // a copy in our folder that others can write to is replaced, not loaded
        Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertEquals(planted, NativeFiles.locate(url, List.of(open)));
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(planted)));
        assertArrayEquals(library, Files.readAllBytes(planted));
    }

    /** As above, for folders that belong to another user: their owner can change them whatever their mode. */
    @Test
    void aLibraryIsNeverLoadedFromAnotherUsersFolder() throws IOException {
        assertEquals(0, (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"),
            "giving a folder to another uid needs root (CI runs as root, as the disk-full tests do)");
        final URL url = jarUrl();
        final Path fallback = tmp.resolve("cache-private-2");
        final Path expected = fallback.resolve(NativeFiles.folderName(library)).resolve("libdemo.so");
        final Path theirs = Files.createDirectory(tmp.resolve("cache-theirs"));
        final Path planted = theirs.resolve(NativeFiles.folderName(library)).resolve("libdemo.so");
        Files.createDirectories(planted.getParent());
        Files.write(planted, library);

        // their library folder (mode 0755: only they can write to it)
        Files.setAttribute(planted.getParent(), "unix:uid", 4321);
        Files.setAttribute(planted, "unix:uid", 4321);
        assertEquals(expected, NativeFiles.locate(url, List.of(theirs, fallback)));
        IOException leaf = assertThrows(IOException.class, () -> NativeFiles.extract(library, "libdemo.so", theirs));
        assertTrue(leaf.getMessage().contains("belongs to uid 4321"), leaf.getMessage());

        // our library folder inside their root: they can rename it away and put their own in its place
        Files.setAttribute(planted.getParent(), "unix:uid", 0);
        Files.setAttribute(planted, "unix:uid", 0);
        Files.setAttribute(theirs, "unix:uid", 4321);
        assertEquals(expected, NativeFiles.locate(url, List.of(theirs, fallback)));
        Files.setAttribute(theirs, "unix:uid", 0);
        assertEquals(planted, NativeFiles.locate(url, List.of(theirs, fallback)));
    }

    /**
     * A folder above the library's that belongs to the kernel's overflow uid is allowed in a user namespace, where
     * that uid stands for an unmapped owner (root's files in a rootless container), and refused on a host, where it
     * is an account of its own ({@code nobody}: a process of it renamed a user's temp root under them, the second
     * security review). Another uid is refused either way. The overflow uid was once read as the first digit of the
     * sysctl file ({@code Files.readString} of a numeric sysctl gives one byte): 6, the uid of {@code man}, was
     * allowed instead.
     */
    @Test
    void theKernelsOverflowUidIsAllowedAboveTheLibraryFolderInAUserNamespaceOnly() throws IOException {
        assertEquals(0, (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"),
            "giving a folder to another uid needs root (CI runs as root, as the disk-full tests do)");
        final int overflow;
        try (InputStream in = Files.newInputStream(Path.of("/proc/sys/kernel/overflowuid"))) {
            overflow = Integer.parseInt(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).strip());
        }
        final Path above = Files.createDirectory(tmp.resolve("unmapped-owner"));
        final Path folder = Files.createDirectory(above.resolve("ours"));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(above, "unix:uid", overflow);
        if (FolderSafety.inUserNamespace()) {
            assertEquals(folder.toRealPath(), NativeFiles.requireSafeFolder(folder));
        } else {
            final IOException onAHost = assertThrows(IOException.class, () -> NativeFiles.requireSafeFolder(folder));
            assertTrue(onAHost.getMessage().contains("belongs to uid " + overflow), onAHost.getMessage());
        }
        final int other = Integer.parseInt(Integer.toString(overflow).substring(0, 1)); // what was taken for it
        Files.setAttribute(above, "unix:uid", other);
        IOException e = assertThrows(IOException.class, () -> NativeFiles.requireSafeFolder(folder));
        assertTrue(e.getMessage().contains("belongs to uid " + other), e.getMessage());
        Files.setAttribute(above, "unix:uid", 0);
    }

    @Test
    void jnaLoadsItsOwnLibraryFromTheCache() throws IOException {
        Path cache = tmp.resolve("cache-jna");
        byte[] dispatch = resourceBytes(com.sun.jna.Native.class.getClassLoader(), NativeFiles.JNA_DISPATCH);
        Path expected = cachedCopy(cache, dispatch, "libjnidispatch.so");
        for (int run = 0; run < 2; run++) { // the first JVM extracts, the second reuses
            try (ChildJvm child = ChildJvm.start(JnaChild.class, List.of("-Dsharray.nativeCache=" + cache))) {
                assertEquals("libc bound: true", child.readLine());
                assertEquals("boot path: " + expected.getParent(), child.readLine());
                assertEquals("mapped: " + expected, child.readLine());
            }
            assertEquals(List.of(expected), filesUnder(cache));
            assertArrayEquals(dispatch, Files.readAllBytes(expected));
        }
    }

    /**
     * Chronicle's POSIX layer loads jffi, which extracted its library to a temporary file in every JVM that mapped a
     * MAPPED_FILE array (a killed JVM could leave it there): it now loads the cached copy, as JNA does.
     */
    @Test
    void jffiLoadsItsLibraryFromTheCache() throws IOException {
        Path cache = tmp.resolve("cache-jffi");
        byte[] stub = resourceBytes(NativeFiles.class.getClassLoader(), NativeFiles.JFFI_STUB);
        Path expected = cachedCopy(cache, stub, "libjffi-1.2.so");
        try (ChildJvm child = ChildJvm.start(JffiChild.class, List.of("-Dsharray.nativeCache=" + cache,
            "-Djava.io.tmpdir=" + Files.createDirectories(tmp.resolve("jffi-tmp"))))) {
            assertEquals("read back: 42.0", child.readLine());
            assertEquals("boot path: " + expected.getParent(), child.readLine());
            assertEquals("mapped: " + expected, child.readLine());
        }
        assertArrayEquals(stub, Files.readAllBytes(expected));
    }

    /**
     * A uid without a passwd entry has user.home "?". JNA's start-up creates its temporary folder, ~/.cache/JNA/temp,
     * to clean it: "?/.cache/JNA/temp" in the working folder of every JVM that used JNA. With its library in the
     * cache, JNA is given that folder instead.
     */
    @Test
    void jnaMakesNoFolderInTheWorkingFolderWithoutAHome() throws Exception {
        Path cwd = Files.createDirectory(tmp.resolve("cwd-no-home"));
        ProcessBuilder pb = new ProcessBuilder(JvmFlags.javaCommand(List.of("-Duser.home=?",
            "-Dsharray.nativeCache=" + tmp.resolve("cache-no-home")), JnaChild.class.getName()))
            .directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().remove("XDG_CACHE_HOME");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.contains("libc bound: true"), out);
        try (Stream<Path> left = Files.list(cwd)) {
            assertEquals(List.of(), left.collect(Collectors.toList()), "left in the working folder");
        }
    }

    /**
     * JDK 25 takes user.home from a relative $HOME for a uid without a passwd entry (JDK 17 says "?"); the library
     * cache was then made as relhome/.cache/sharray/... in the working folder (deployment review 49, F4). A relative
     * home is passed over now, as "?" was.
     */
    @Test
    void aRelativeHomeGetsNoCacheInTheWorkingFolder() throws Exception {
        final Path cwd = Files.createDirectory(tmp.resolve("cwd-relative-home"));
        final ProcessBuilder pb = new ProcessBuilder(JvmFlags.javaCommand(List.of("-Duser.home=relhome",
            "-Djava.io.tmpdir=" + Files.createDirectory(tmp.resolve("tmp-relative-home"))), JnaChild.class.getName()))
            .directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().remove("XDG_CACHE_HOME");
        final Process p = pb.start();
        final String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.contains("libc bound: true") && out.contains("boot path: " + tmp.resolve("tmp-relative-home")),
            "JNA's library came from the java.io.tmpdir root\n" + out);
        try (Stream<Path> left = Files.list(cwd)) {
            assertEquals(List.of(), left.collect(Collectors.toList()), "left in the working folder");
        }
    }

    /**
     * With no folder JNA's library could be put in (no cache home, java.io.tmpdir not a folder), JNA's own extraction
     * failed with 15 lines of warning and stack trace on the first create, before the pure-Java fallback (JVM variety
     * review 48, F4). It says so in one line now.
     */
    @Test
    void nowhereToPutJnasLibraryIsSaidInOneLine() throws Exception {
        final Path notAFolder = Files.writeString(tmp.resolve("not-a-folder"), "");
        final ProcessBuilder pb = new ProcessBuilder(JvmFlags.javaCommand(List.of(
            "-Duser.home=" + notAFolder.resolve("home"), "-Djava.io.tmpdir=" + notAFolder.resolve("tmp")),
            JnaChild.class.getName())).redirectErrorStream(true);
        pb.environment().remove("XDG_CACHE_HOME");
        final String said = theOneJnaLineOf(pb);
        assertTrue(said.contains("JNA cannot load its native library (") && said.contains("temporary directory")
            && said.contains("-Dsharray.nativeCache"), said);
    }

    /** @return the one line a JnaChild whose JNA could not load its library says about JNA (checked: one, no trace) */
    private static String theOneJnaLineOf(ProcessBuilder child) throws Exception {
        final Process p = child.redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.contains("libc bound: false"), "the premise: JNA could not load its library\n" + out);
        final List<String> said = out.lines().filter(l -> l.contains("JNA")).collect(Collectors.toList());
        assertEquals(1, said.size(), out);
        assertFalse(out.contains("\tat "), "no stack trace:\n" + out);
        return said.get(0);
    }

    /**
     * A library folder named for JNA whose library does not load (a damaged file; JNA told not to extract one
     * itself): the fallback was silent, as sharray's line was given only where JNA extracted its library (diff review
     * 49). Said in the same one line now.
     */
    @Test
    void aNamedJnaFolderWhoseLibraryFailsIsSaidInOneLineToo() throws Exception {
        final Path folder = Files.createDirectories(tmp.resolve("named"));
        Files.writeString(folder.resolve("libjnidispatch.so"), "not a shared object");
        final String said = theOneJnaLineOf(new ProcessBuilder(JvmFlags.javaCommand(List.of(
            "-Djna.boot.library.path=" + folder, "-Djna.nounpack=true"), JnaChild.class.getName())));
        assertTrue(said.contains("JNA cannot load its native library (") && said.contains("pure Java")
            && said.endsWith("(it looked in jna.boot.library.path " + folder + ")"), said);
    }

    /**
     * A cache home on a noexec mount (a hardened container's volume): the library extracted there, then failed to
     * load ("failed to map segment from shared object"), and the codec ran its Java fallback although java.io.tmpdir
     * could have held it (deployment review 49, F2). Such a root is passed over now. Needs root for the mount (CI runs
     * as root).
     */
    @Test
    void aRootOnANoexecMountIsPassedOver() throws IOException, InterruptedException {
        final Path noexec = Files.createDirectories(tmp.resolve("noexec"));
        final Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "noexec,size=4m", "tmpfs",
            noexec.toString()).inheritIO().start();
        assertEquals(0, mount.waitFor(), "mounting a tmpfs needs root (CI runs as root)");
        try {
            final Path fallback = Files.createDirectories(tmp.resolve("fallback"));
            assertTrue(MountOptions.isNoExec(noexec.resolve("cache/not/made/yet")));
            assertFalse(MountOptions.isNoExec(fallback));
            assertEquals(fallback.resolve(NativeFiles.folderName(library)).resolve("libdemo.so"),
                NativeFiles.locate(jarUrl(), List.of(noexec.resolve("cache"), fallback)));
            assertFalse(Files.exists(noexec.resolve("cache")), "nothing was made on the noexec mount");
            final IOException e = assertThrows(IOException.class,
                () -> NativeFiles.locate(jarUrl(), List.of(noexec.resolve("cache"))));
            assertTrue(e.getMessage().contains("mounted noexec"), e.getMessage());
        } finally {
            new ProcessBuilder("umount", noexec.toString()).inheritIO().start().waitFor();
        }
    }

    @Test
    void mountInfoPathsAreUnescaped() {
        assertEquals("/mnt/my dir\\x", MountOptions.unescape("/mnt/my\\040dir\\134x"));
        assertEquals("/mnt/\\04", MountOptions.unescape("/mnt/\\04"));
    }

    /** Child side: binds libc through {@link Posix} (JNA's first use), then reports which libjnidispatch it mapped. */
    public static final class JnaChild {
        public static void main(String[] args) throws IOException {
            System.out.println("libc bound: " + Posix.available());
            System.out.println("boot path: " + System.getProperty("jna.boot.library.path"));
            System.out.println("mapped: " + mappedFile("libjnidispatch"));
        }
    }

    /** Child side: maps a MAPPED_FILE array (Chronicle's first use), then reports which libjffi it mapped. */
    public static final class JffiChild {
        public static void main(String[] args) throws IOException {
            try (SharedArray a = SharedArray.builder(DType.FLOAT64, 8).backing(Backing.MAPPED_FILE).create()) {
                a.setDouble(42.0, 3);
                System.out.println("read back: " + a.getDouble(3));
            }
            System.out.println("boot path: " + System.getProperty("jffi.boot.library.path"));
            System.out.println("mapped: " + mappedFile("jffi"));
        }
    }

    /**
     * @return the path of the first file this process has mapped whose name contains {@code name} (a library loaded
     *         from a temporary copy shows as that copy, with " (deleted)" once removed), or "none"
     */
    private static String mappedFile(String name) throws IOException {
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return maps.filter(l -> l.indexOf('/') >= 0 && l.substring(l.lastIndexOf('/')).contains(name))
                .map(l -> l.substring(l.indexOf('/'))).findFirst().orElse("none");
        }
    }

    private static byte[] resourceBytes(ClassLoader loader, String resource) throws IOException {
        try (InputStream in = loader.getResourceAsStream(resource)) {
            return in.readAllBytes();
        }
    }

    /** @return where the cache under {@code root} keeps a library of these bytes under {@code fileName} */
    private static Path cachedCopy(Path root, byte[] library, String fileName) {
        return root.resolve(NativeFiles.folderName(library)).resolve(fileName).toAbsolutePath();
    }

    private static URL jarUrl() throws IOException {
        return new URL("jar:" + jar.toUri() + "!/" + RESOURCE);
    }

    private static List<Path> filesUnder(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).sorted().collect(Collectors.toList());
        }
    }
}
