/**
 * Value types shared by requests, replies and the handler: ids, errno values, attributes, directory
 * entries, cache timeouts and the buffer lease. A leaf package: it depends on nothing else of the SDK.
 */
@NullMarked
package io.github.purefuse.api.types;

import org.jspecify.annotations.NullMarked;
