package dev.sharray;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A null argument is refused with the public parameter's name. These failed deep inside instead, naming internals
 * ({@code "b" is null}, {@code "[J.clone()"}, {@code dtype.byteSize()}): contracts review 52.
 */
class NullArgumentMessagesTest {
    private static void assertRefused(String parameter, Executable call) {
        assertEquals(parameter, assertThrows(NullPointerException.class, call).getMessage());
    }

    @Test
    void factoriesNameTheirNullParameter() {
        assertRefused("shape", () -> SharedArray.create(DType.FLOAT64, (long[]) null));
        assertRefused("shape", () -> HeapArray.zeros(DType.FLOAT64, (long[]) null));
        assertRefused("dtype", () -> HeapArray.zeros(null, 3));
    }

    @Test
    void arithmeticNamesItsNullOperand() {
        final HeapArray a = HeapArray.zeros(DType.FLOAT64, 3);
        assertRefused("other", () -> a.add((NdArray) null));
        assertRefused("other", () -> a.subtract((NdArray) null));
        assertRefused("other", () -> a.multiply((NdArray) null));
        assertRefused("other", () -> a.divide((NdArray) null));
        assertRefused("other", () -> a.dot(null));
    }
}
