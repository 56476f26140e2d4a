package dev.sharray.pool;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The banners HotSpot prints as it aborts, as they reach a worker's output forwarder. The crash banner is also
 * met end to end (a worker crashed on purpose, in {@code FaultsTest}); running a worker out of native memory on
 * purpose is not reliable, so that banner is fed here in the form HotSpot prints it.
 */
class JvmFatalErrorTest {

    private static JvmFatalError fed(List<String> lines) {
        final JvmFatalError e = new JvmFatalError();
        lines.forEach(e::accept);
        return e;
    }

    @Test
    void outOfNativeMemorySaysWhatFailedAndWhereTheReportIs() {
        final JvmFatalError e = fed(List.of(
            "task output before the end",
            "#",
            "# There is insufficient memory for the Java Runtime Environment to continue.",
            "# Native memory allocation (malloc) failed to allocate 1048576 bytes for AllocateHeap",
            "# An error report file with more information is saved as:",
            "# /work/hs_err_pid5678.log"));
        assertEquals("out of native memory: Native memory allocation (malloc) failed to allocate 1048576 bytes for AllocateHeap",
            e.summary());
        assertEquals(Path.of("/work/hs_err_pid5678.log"), e.reportFile());
    }

    @Test
    void aCrashWhoseReportCouldNotBeWrittenHasNoReportFile() {
        final JvmFatalError e = fed(List.of(
            "#",
            "# A fatal error has been detected by the Java Runtime Environment:",
            "#",
            "#  SIGBUS (0x7) at pc=0x00007f0c2d1a2b3c, pid=4321, tid=4322",
            "#",
            "# Problematic frame:",
            "# C  [libsharraycodec.so+0x1234]  sc_dot+0x56",
            "#",
            "# Can not save log file, dump to screen.."));
        assertEquals("SIGBUS (0x7) at pc=0x00007f0c2d1a2b3c, pid=4321, tid=4322 in C [libsharraycodec.so+0x1234] sc_dot+0x56",
            e.summary());
        assertNull(e.reportFile());
    }

    @Test
    void ordinaryOutputIsNoFatalError() {
        final JvmFatalError e = fed(List.of("# a line a task printed", "An error report file with more information is saved as:"));
        assertNull(e.summary());
        assertNull(e.reportFile());
    }
}
