package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

/** The class-data archive's name is a 64-bit FNV-1a of the configuration: configurations must not share one. */
class ArchiveNameHashTest {
    private static String fnv(String text) {
        final ClassDataArchive.Fnv64 h = new ClassDataArchive.Fnv64();
        h.add(text);
        return h.hex();
    }

    @Test
    void itIsFnv1a() {
        assertEquals("cbf29ce484222325", fnv("")); // the published test vectors
        assertEquals("af63dc4c8601ec8c", fnv("a"));
        assertEquals("85944171f73967e8", fnv("foobar"));
    }

    @Test
    void reorderedClasspathsGetDifferentNames() {
        assertNotEquals(fnv("/a.jar:/b.jar"), fnv("/b.jar:/a.jar"));
    }
}
