package dev.sharray.reducers;

import dev.sharray.Descriptor;
import dev.sharray.SharedArray;

/**
 * The receiving side's policy for descriptors: opens the arrays a message refers to and keeps them
 * until the message's work is done. {@link OpenedArrays} is the standard implementation.
 */
public interface ArrayOpening {

    /**
     * Opens the view {@code descriptor} describes and keeps track of it.
     *
     * @param descriptor a descriptor read from the message
     * @return the open array; the policy, not the caller, decides when it is released
     */
    SharedArray open(Descriptor descriptor);
}
