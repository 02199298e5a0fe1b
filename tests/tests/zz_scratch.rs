mod common;
use common::ArenaSamples;
use idlc_tests::arena_client as ac;
#[test]
fn scratch() {
    let s = ac::PlayerState::samples()[2].clone();
    let d = ac::PlayerState::default();
    macro_rules! try_field { ($($f:ident),*) => { $( {
        let mut v = s.clone(); v.$f = d.$f.clone();
        let b = v.to_bytes().unwrap();
        println!("{} reset -> {:?}", stringify!($f), ac::PlayerState::from_bytes(&b).map(|_|()));
        let mut v = d.clone(); v.$f = s.$f.clone();
        let b = v.to_bytes().unwrap();
        println!("{} only -> {:?}", stringify!($f), ac::PlayerState::from_bytes(&b).map(|_|()));
    } )* } }
    try_field!(slot, team, x, y, z, vx, vy, vz, yaw, pitch, health, armor, weapon, ammo, stance, firing, kills, score);
}
