package dev.sharray.reducers;

/**
 * The receiving side's policy for descriptors: opens the arrays a message refers to and keeps them
 * until the message's work is done. {@link OpenedArrays} is the standard implementation.
 */
public interface ArrayOpening {
}
