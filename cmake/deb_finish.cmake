# Run by cpack -G DEB (CPACK_PRE_BUILD_SCRIPTS) on the staged packages, one folder per
# component under CPACK_TEMPORARY_DIRECTORY, before they are archived: what debhelper does to a
# Debian package's files, and `cmake --install` should not do to an install from source.
#   - programs and shared libraries stripped, with the compiler's .comment and .note sections
#     (policy 10.1, as dh_strip; there is no -dbgsym package here); the static library only
#     loses its debug sections (a linker still needs its symbols);
#   - man pages compressed with gzip -9n (policy 12.1; -n: no name or time, reproducible);
#   - the changelog as /usr/share/doc/PACKAGE/changelog.gz beside each copyright file (policy
#     12.7: a native package's is changelog.gz).
cmake_policy(VERSION 3.25)  # a script has no project to set its policies
set(strip "${CPACK_CALLWIRE_STRIP}" --remove-section=.comment --remove-section=.note)
file(GLOB stages LIST_DIRECTORIES true "${CPACK_TEMPORARY_DIRECTORY}/*")
foreach(stage IN LISTS stages)
  # (dh_strip's options: all symbols from a program, all but the dynamic ones from a library.)
  file(GLOB_RECURSE programs "${stage}/usr/bin/*")
  file(GLOB_RECURSE libraries "${stage}/usr/lib/*.so.*")
  foreach(binary IN LISTS programs libraries)
    if(NOT IS_SYMLINK "${binary}")
      set(how "")
      if(binary IN_LIST libraries)
        set(how --strip-unneeded)
      endif()
      execute_process(COMMAND ${strip} ${how} "${binary}" COMMAND_ERROR_IS_FATAL ANY)
    endif()
  endforeach()
  file(GLOB_RECURSE archives "${stage}/*.a")
  foreach(archive IN LISTS archives)
    execute_process(COMMAND ${strip} --strip-debug --enable-deterministic-archives "${archive}"
                    COMMAND_ERROR_IS_FATAL ANY)
  endforeach()

  file(GLOB_RECURSE pages "${stage}/usr/share/man/*.[1-9]")
  foreach(page IN LISTS pages)
    execute_process(COMMAND gzip -9nf "${page}" COMMAND_ERROR_IS_FATAL ANY)
  endforeach()

  file(GLOB docs LIST_DIRECTORIES true "${stage}/usr/share/doc/*")
  foreach(doc IN LISTS docs)
    execute_process(COMMAND gzip -9nc "${CPACK_CALLWIRE_CHANGELOG}"
                    OUTPUT_FILE "${doc}/changelog.gz" COMMAND_ERROR_IS_FATAL ANY)
    # (A new file's mode follows the umask; the copyright file beside it is installed 0644.)
    file(CHMOD "${doc}/changelog.gz" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  endforeach()
endforeach()
