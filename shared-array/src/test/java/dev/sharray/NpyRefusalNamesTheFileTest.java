package dev.sharray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A {@code .npy} header that {@code openNpy} refuses is refused naming the file, then the field: a caller opening
 * several files learns which one is bad. Before, the message was the header's field alone ("npy.magic: not a .npy
 * file (bad magic)"). The refused file is left as it was.
 */
class NpyRefusalNamesTheFileTest {
    @Test
    void eachHeaderRefusalNamesTheFileFirst(@TempDir Path dir) throws Exception {
        final byte[] tooShort = {(byte) 0x93, 'N', 'U'};
        final byte[] badMagic = "not a numpy file at all".getBytes(StandardCharsets.US_ASCII);
        final byte[] badDescr = npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 3);
        final byte[] shortData = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", 8);
        final Object[][] cases = {
            {tooShort, "npy.magic", "file too short for a .npy header (3 bytes)"},
            {badMagic, "npy.magic", "not a .npy file (bad magic)"},
            {badDescr, "descr", "unsupported NumPy dtype '|b1' (supported: i1, u1, i2, i4, i8, f4, f8): convert it in"
                + " NumPy, e.g. np.save(path, a.astype('u1'))"},
            {shortData, "npy.shape", "shape (4,) needs 32 data bytes but the file has 8"},
        };
        int n = 0;
        for (Object[] c : cases) {
            final Path file = Files.write(dir.resolve("bad" + n++ + ".npy"), (byte[]) c[0]);
            final InvalidDescriptorException e = assertThrows(InvalidDescriptorException.class,
                () -> SharedArray.openNpy(file));
            assertEquals(file.toRealPath() + ": " + c[1] + ": " + c[2], e.getMessage());
            assertEquals(c[1], e.field());
            assertArrayEquals((byte[]) c[0], Files.readAllBytes(file));
        }
    }

    /** A version 1.0 file of {@code dict} followed by {@code dataBytes} zero bytes. */
    private static byte[] npy(String dict, int dataBytes) {
        final StringBuilder header = new StringBuilder(dict);
        while ((10 + header.length() + 1) % 64 != 0) {
            header.append(' ');
        }
        header.append('\n');
        final byte[] text = header.toString().getBytes(StandardCharsets.ISO_8859_1);
        final byte[] out = new byte[10 + text.length + dataBytes];
        System.arraycopy(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}, 0, out, 0, 8);
        out[8] = (byte) text.length;
        out[9] = (byte) (text.length >> 8);
        System.arraycopy(text, 0, out, 10, text.length);
        return out;
    }
}
