# Toolchain for Windows x86-64 with Debian's MinGW-w64 (scripts/setup-windows.sh installs it):
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake \
#         -DCALLWIRE_MINGW_PREFIX=$(bash scripts/setup-windows.sh) ...
# CALLWIRE_MINGW_PREFIX (a variable, or else the environment) is where that script installed
# OpenSSL and simdjson; zlib comes from Debian's /usr/x86_64-w64-mingw32.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(_triple x86_64-w64-mingw32)

# The POSIX-threads compilers by name, whatever the alternatives say: with the win32 variant,
# std::thread and std::mutex are missing.
set(CMAKE_C_COMPILER ${_triple}-gcc-posix)
set(CMAKE_CXX_COMPILER ${_triple}-g++-posix)
set(CMAKE_RC_COMPILER ${_triple}-windres)

# Self-contained .exe and .dll files: libstdc++, libgcc and winpthread linked in, so Wine (or
# Windows) needs none of MinGW's DLLs beside them. -static-libgcc -static-libstdc++ alone still
# leaves libwinpthread-1.dll, which Wine cannot find (exit code 53, silent under WINEDEBUG=-all).
foreach(_kind EXE SHARED MODULE)
  set(CMAKE_${_kind}_LINKER_FLAGS_INIT -static)
endforeach()
# Find the static zlib and OpenSSL, not the DLLs' import libraries.
set(ZLIB_USE_STATIC_LIBS ON)
set(OPENSSL_USE_STATIC_LIBS ON)

if(NOT CALLWIRE_MINGW_PREFIX AND DEFINED ENV{CALLWIRE_MINGW_PREFIX})
  set(CALLWIRE_MINGW_PREFIX "$ENV{CALLWIRE_MINGW_PREFIX}")
endif()
# try_compile's projects read this file again: pass the prefix on to them.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CALLWIRE_MINGW_PREFIX)

# Headers, libraries and CMake packages from the target's roots only, never the host's;
# programs (code generators, tools) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${_triple} ${CALLWIRE_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest (and add_custom_command on a target) run the .exe files under Wine: Debian 12 puts
# wine64 in /usr/lib/wine. Headless and quiet, in the script's Wine prefix beside the deps
# prefix unless WINEPREFIX is set, with no Mono or Gecko installer to ask in a window.
# The first test starts wineserver and Wine's services, which hold ctest's output pipe open
# until the server quits 3 s after its last client: a test then takes 3 s or more. Start a
# lasting one before ctest, not inside it: `wineserver -p; wine64 wineboot` with output to
# /dev/null (each test then takes ~0.1 s), and `wineserver -k` after.
find_program(CALLWIRE_WINE64 NAMES wine64 PATHS /usr/lib/wine NO_CMAKE_FIND_ROOT_PATH)
if(CALLWIRE_WINE64)
  set(_env WINEDEBUG=-all "WINEDLLOVERRIDES=mscoree,mshtml=")
  if(NOT DEFINED ENV{WINEPREFIX} AND CALLWIRE_MINGW_PREFIX
     AND EXISTS "${CALLWIRE_MINGW_PREFIX}/../wine")
    get_filename_component(_wineprefix "${CALLWIRE_MINGW_PREFIX}/../wine" ABSOLUTE)
    list(APPEND _env "WINEPREFIX=${_wineprefix}")
  endif()
  # Through wine-test.sh, which starts a program Wine failed to launch once more.
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/wine-test.sh /usr/bin/env ${_env}
                                    ${CALLWIRE_WINE64})
endif()
