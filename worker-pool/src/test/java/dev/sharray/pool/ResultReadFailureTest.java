package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.reducers.MalformedDataException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

/**
 * A result this JVM could not take in for want of heap or file descriptors was reported as malformed, a type the
 * reducers keep for bytes that are not a valid encoding (and the fuzz review for hostile ones).
 */
class ResultReadFailureTest {
    @Test
    void aShortageKeepsItsTypeAndBadBytesAreMalformed() {
        final Throwable heap = ResultDecoder.readFailure(new OutOfMemoryError("Java heap space"));
        assertInstanceOf(OutOfMemoryError.class, heap);
        assertEquals("cannot read result: Java heap space", heap.getMessage());

        final FileSystemException emfile = new FileSystemException("/x/a1.ref", null, "Too many open files");
        final Throwable descriptors = ResultDecoder.readFailure(
            new UncheckedIOException("cannot map the reference file /x/a1.ref", emfile));
        assertInstanceOf(UncheckedIOException.class, descriptors);
        assertSame(emfile, descriptors.getCause());
        assertTrue(descriptors.getMessage().startsWith("cannot read result: cannot map the reference file"), descriptors.getMessage());

        // a file that is not there is what a garbled or hostile result names: malformed
        assertInstanceOf(MalformedDataException.class, ResultDecoder.readFailure(
            new UncheckedIOException("cannot open", new NoSuchFileException("/x/a1.ref"))));
        assertInstanceOf(MalformedDataException.class, ResultDecoder.readFailure(new IndexOutOfBoundsException("7")));
        final MalformedDataException bad = new MalformedDataException("unknown tag 99");
        assertSame(bad, ResultDecoder.readFailure(bad));
    }
}
