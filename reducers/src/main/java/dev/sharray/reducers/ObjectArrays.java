package dev.sharray.reducers;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Arrays of references ({@code String[]}, {@code double[][]}, {@code Item[]}, {@code Object[]}): the component
 * class's name, the length, then every element through the registry. Rebuilt with the same component class, so a
 * {@code double[][]} arrives as a {@code double[][]}, not an {@code Object[]}.
 */
final class ObjectArrays {
    private ObjectArrays() {
    }

    /** Writes {@code array} (an instance of {@code component[]}) with its tag. */
    static void write(Object[] array, Class<?> component, ValueWriter out) {
        out.writeByte(Tags.OBJECT_ARRAY);
        out.writeString(component.getName());
        final int n = array.length;
        out.writeInt(n);
        for (int i = 0; i < n; i++) {
            final Object element = array[i];
            if (element instanceof Collection || element instanceof Map) {
                // a LinkedList[] would be rebuilt holding ArrayLists, which it cannot hold: refuse it here, not there
                out.reducers().checkArrivesAs(component, element, "element " + i + " of a "
                    + component.getTypeName() + "[]");
            }
            out.writeValue(element);
        }
    }

    /**
     * Reads an array (tag already read). Its component class is loaded without being initialised and must be one
     * the registry could have written; the array is allocated only once its elements have been read, so a hostile
     * length costs no more memory than the bytes really present.
     */
    static Object[] read(ValueReader in, Reducers reducers) {
        final Class<?> component = reducers.arrayComponentClass(in.readString());
        final int n = in.readCount(1); // every element takes at least its tag byte
        // collected as a list is (presized at most to the limit, grown by the elements read), then copied once
        final List<Object> elements = new ArrayList<>(Math.min(n, Reducers.PRESIZE_LIMIT));
        for (int i = 0; i < n; i++) {
            elements.add(element(component, i, in));
        }
        return elements.toArray(newArray(component, n));
    }

    private static Object element(Class<?> component, int index, ValueReader in) {
        final Object v = in.readValue();
        if (v != null && !component.isInstance(v)) {
            throw new MalformedDataException("element " + index + " of a " + component.getTypeName() + "[] is a "
                + v.getClass().getTypeName());
        }
        return v;
    }

    private static Object[] newArray(Class<?> component, int n) {
        try {
            return (Object[]) Array.newInstance(component, n); // does not initialise the component class
        } catch (IllegalArgumentException e) {
            // more than 255 dimensions
            throw new MalformedDataException("cannot make an array of " + component.getTypeName() + ": " + e.getMessage(), e);
        }
    }
}
