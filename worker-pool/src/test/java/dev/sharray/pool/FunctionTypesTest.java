package dev.sharray.pool;

import dev.sharray.HeapArray;
import dev.sharray.NdArray;
import dev.sharray.SharedArray;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link FunctionCodec#takesSharedArray}: which declared parameter types get a shared copy as it is. */
class FunctionTypesTest {
    static final class OnNd implements RemoteFunction<NdArray, Double> {
        @Override
        public Double apply(NdArray a) {
            return a.sum();
        }
    }

    static final class OnDoubles implements RemoteFunction<double[], Integer> {
        @Override
        public Integer apply(double[] a) {
            return a.length;
        }
    }

    static double firstOf(double[] a) {
        return a[0];
    }

    @Test
    void lambdasByTheirInstantiatedType() {
        final RemoteFunction<NdArray, Double> nd = a -> a.sum();
        final RemoteFunction<SharedArray, Double> shared = a -> a.sum();
        final RemoteFunction<Object, String> object = a -> String.valueOf(a);
        final double offset = 1;
        final RemoteFunction<NdArray, Double> capturing = a -> a.sum() + offset;
        assertTrue(FunctionCodec.takesSharedArray(nd));
        assertTrue(FunctionCodec.takesSharedArray(shared));
        assertTrue(FunctionCodec.takesSharedArray(object));
        assertTrue(FunctionCodec.takesSharedArray(capturing));
        assertEquals("dev.sharray.NdArray", FunctionCodec.parameterTypeName(nd));
        final RemoteFunction<double[], Double> doubles = a -> a[0];
        final RemoteFunction<HeapArray, Double> heap = a -> a.sum();
        final RemoteFunction<Integer, Integer> boxed = a -> a;
        final RemoteFunction<double[], Double> methodRef = FunctionTypesTest::firstOf;
        assertFalse(FunctionCodec.takesSharedArray(doubles));
        assertFalse(FunctionCodec.takesSharedArray(heap));
        assertFalse(FunctionCodec.takesSharedArray(boxed));
        assertFalse(FunctionCodec.takesSharedArray(methodRef));
    }

    @Test
    void namedClassesByTheirApplyMethod() {
        assertTrue(FunctionCodec.takesSharedArray(new OnNd()));
        assertFalse(FunctionCodec.takesSharedArray(new OnDoubles()));
        assertEquals("[D", FunctionCodec.parameterTypeName(new OnDoubles()));
    }
}
