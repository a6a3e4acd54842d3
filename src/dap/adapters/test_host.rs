//! A fake [`Host`] for the recipes' unit tests: environment variables, executable files, plain
//! files with contents, directories and a working directory — nothing from the real machine.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::Host;

#[derive(Default)]
pub struct FakeHost {
    pub vars: HashMap<&'static str, &'static str>,
    pub exes: HashSet<&'static str>,
    pub files: HashMap<&'static str, &'static [u8]>,
    pub dirs: HashSet<&'static str>,
    /// agentdap's working directory; `/srv/cwd` when unset.
    pub cwd: Option<&'static str>,
    /// Paths another user could have written.
    pub shared: HashSet<&'static str>,
}

impl Host for FakeHost {
    fn var(&self, name: &str) -> Option<OsString> {
        self.vars.get(name).map(OsString::from)
    }

    fn is_executable(&self, path: &Path) -> bool {
        path.to_str().is_some_and(|p| self.exes.contains(p))
    }

    fn cwd(&self) -> Option<PathBuf> {
        Some(PathBuf::from(self.cwd.unwrap_or("/srv/cwd")))
    }

    fn read_range(&self, path: &Path, offset: u64, len: usize) -> Option<Vec<u8>> {
        let data = self.files.get(path.to_str()?)?;
        let start = (offset as usize).min(data.len());
        Some(data[start..(start + len).min(data.len())].to_vec())
    }

    fn is_file(&self, path: &Path) -> bool {
        path.to_str().is_some_and(|p| self.files.contains_key(p) || self.exes.contains(p))
    }

    fn is_dir(&self, path: &Path) -> bool {
        path.to_str().is_some_and(|p| self.dirs.contains(p))
    }

    fn others_could_write(&self, path: &Path) -> bool {
        path.to_str().is_some_and(|p| self.shared.contains(p))
    }

    /// The first path component below `path` of every executable and file, sorted, deduplicated.
    fn list_dir(&self, path: &Path, cap: usize) -> Vec<OsString> {
        let prefix = format!("{}/", path.display());
        let mut names: Vec<OsString> = self
            .exes
            .iter()
            .chain(self.files.keys())
            .filter_map(|p| p.strip_prefix(&prefix))
            .map(|rest| OsString::from(rest.split('/').next().unwrap_or(rest)))
            .collect();
        names.sort();
        names.dedup();
        names.truncate(cap);
        names
    }
}
