// tile_schedule.glsl: which tiles a workgroup takes when the host dispatches fewer workgroups
// than there are tiles (strategy option `tiles`: single_pass and subgroup).
//
// Workgroup g of G takes tiles g, g+G, g+2G, ... of a region regionX tiles wide, row-major. At
// any moment the running workgroups work on neighbouring tiles (shared DRAM pages and L2 lines),
// and a workgroup with several tiles can issue the next tile's fetches before it reduces the
// current one (`prefetch`): the loads of one tile are in flight during the shuffles and barriers
// of the other, which is what a latency-bound reduction lacks. The dispatch may be 2D (more
// than 65535 workgroups): the host keeps gx * gy - needed < gy, so few workgroups idle.
#ifndef TILE_SCHEDULE_GLSL
#define TILE_SCHEDULE_GLSL

int mipGroupIndex() {
    return int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
}

int mipGroupCount() {
    return int(gl_NumWorkGroups.x * gl_NumWorkGroups.y);
}

ivec2 mipTileAt(int t, int regionX) {
    return mipUnflatten(t, regionX);
}

#endif
